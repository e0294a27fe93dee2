import { Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { inferenceProfileOf } from '../../layers/core/adapters/ai/bedrock-models';
import type { ServiceFunction } from './service-function';

export interface BedrockModelAccessProps {
  /** The answer model: a foundation model id, or a cross-region inference profile id. */
  readonly answerModel: string;
  /** The embedding model (a foundation model id). */
  readonly embeddingModel: string;
  /** Vector length; unset, the embedding model's own. */
  readonly embeddingDimensions?: number | undefined;
  /** The regions an inference profile routes to (empty for foundation models). */
  readonly profileRegions: readonly string[];
}

/** What a function does with Bedrock: answer (and embed the question), or embed only. */
export type BedrockUse = 'answers' | 'embeddings';

/** The Converse API needs `InvokeModel`; ConverseStream `InvokeModelWithResponseStream`. */
export const BEDROCK_ANSWER_ACTIONS = [
  'bedrock:InvokeModel',
  'bedrock:InvokeModelWithResponseStream',
] as const;
/** `InvokeModel` is all embeddings need. */
export const BEDROCK_EMBEDDING_ACTIONS = ['bedrock:InvokeModel'] as const;

/**
 * Amazon Bedrock as the deployment's model provider (issue 32): no key,
 * no secret, the functions' roles are the access. A function connected to
 * it is told the models in its environment (`MODEL_PROVIDER=bedrock`,
 * `BEDROCK_*`) and may invoke exactly those models, nothing else:
 *
 * - `answers` (query, eval worker): `InvokeModel` and
 *   `InvokeModelWithResponseStream` on the answer model, `InvokeModel` on
 *   the embedding model (the question's vector);
 * - `embeddings` (search, sync and ingestion workers): `InvokeModel` on the
 *   embedding model only.
 *
 * A foundation model is its ARN in the stack's region. An inference profile
 * is its own ARN in the stack's region and account, plus the foundation
 * model's ARN in each region it routes to (IAM checks both); a `global.`
 * profile's model ARN has an empty region, as AWS documents it. No resource
 * has a wildcard.
 *
 * @example
 * const bedrock = new BedrockModelAccess(this, 'Bedrock', { answerModel: 'amazon.nova-lite-v1:0', … });
 * bedrock.connect(queryFunction, 'answers');
 */
export class BedrockModelAccess extends Construct {
  /** The model answers come from (a foundation model or inference profile id). */
  readonly answerModel: string;
  /** The ARNs the answer actions are granted on. */
  readonly answerModelArns: readonly string[];
  /** The ARN `InvokeModel` is granted on for embeddings. */
  readonly embeddingModelArns: readonly string[];
  readonly #environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: BedrockModelAccessProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.answerModel = props.answerModel;
    const foundationModel = (modelId: string, region: string = stack.region) =>
      `arn:${stack.partition}:bedrock:${region}::foundation-model/${modelId}`;
    const profile = inferenceProfileOf(props.answerModel);
    this.answerModelArns = profile
      ? [
          `arn:${stack.partition}:bedrock:${stack.region}:${stack.account}:inference-profile/${props.answerModel}`,
          foundationModel(profile.foundationModel),
          ...(profile.geography === 'global' ? [foundationModel(profile.foundationModel, '')] : []),
          ...props.profileRegions.map((region) => foundationModel(profile.foundationModel, region)),
        ]
      : [foundationModel(props.answerModel)];
    this.embeddingModelArns = [foundationModel(props.embeddingModel)];
    this.#environment = {
      MODEL_PROVIDER: 'bedrock',
      BEDROCK_ANSWER_MODEL: props.answerModel,
      BEDROCK_EMBEDDING_MODEL: props.embeddingModel,
      ...(props.embeddingDimensions === undefined
        ? {}
        : { BEDROCK_EMBEDDING_DIMENSIONS: String(props.embeddingDimensions) }),
    };
  }

  /** Lets `target` call the models for `use`: its environment names them and its role may invoke them. */
  connect(target: ServiceFunction, use: BedrockUse): void {
    for (const [name, value] of Object.entries(this.#environment)) {
      target.function.addEnvironment(name, value);
    }
    if (use === 'answers') {
      target.function.addToRolePolicy(
        new iam.PolicyStatement({
          sid: 'BedrockAnswers',
          actions: [...BEDROCK_ANSWER_ACTIONS],
          resources: [...this.answerModelArns],
        }),
      );
    }
    target.function.addToRolePolicy(
      new iam.PolicyStatement({
        sid: 'BedrockEmbeddings',
        actions: [...BEDROCK_EMBEDDING_ACTIONS],
        resources: [...this.embeddingModelArns],
      }),
    );
  }
}
