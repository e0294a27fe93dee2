/**
 * The Amazon Bedrock models the service knows how to call, and their
 * defaults, without the SDK: the CDK stack reads them to grant access and to
 * create the chunk index, and must not load the Bedrock client to do so.
 */

/**
 * Defaults when the deployment names no model:
 * - answers: Amazon Nova Lite, an Amazon model (no Marketplace subscription,
 *   no use-case form), on demand in the deployment's region, and among the
 *   cheapest that cite sources reliably;
 * - embeddings: Amazon Titan Text Embeddings V2 at 1024 dimensions, its
 *   native length (256 and 512 are cheaper to store and search, and a little
 *   less precise).
 */
export const BEDROCK_DEFAULTS = {
  answerModel: 'amazon.nova-lite-v1:0',
  embeddingModel: 'amazon.titan-embed-text-v2:0',
  embeddingDimensions: 1024,
} as const;

/**
 * What each embedding model accepts: its vector lengths (the first is the
 * model's own), how many texts one `InvokeModel` carries, and the request
 * and response bodies' shape.
 */
export const BEDROCK_EMBEDDING_MODELS = {
  'amazon.titan-embed-text-v2:0': {
    dimensions: [1024, 512, 256],
    textsPerRequest: 1,
    body: 'titan',
  },
  'amazon.titan-embed-text-v1': { dimensions: [1536], textsPerRequest: 1, body: 'titan' },
  // Cohere takes up to 96 texts per request: the batched case.
  'cohere.embed-english-v3': { dimensions: [1024], textsPerRequest: 96, body: 'cohere' },
  'cohere.embed-multilingual-v3': { dimensions: [1024], textsPerRequest: 96, body: 'cohere' },
} as const satisfies Record<
  string,
  {
    readonly dimensions: readonly number[];
    readonly textsPerRequest: number;
    readonly body: 'titan' | 'cohere';
  }
>;

export type BedrockEmbeddingModel = keyof typeof BEDROCK_EMBEDDING_MODELS;
export const BEDROCK_EMBEDDING_MODEL_IDS = Object.keys(
  BEDROCK_EMBEDDING_MODELS,
) as BedrockEmbeddingModel[];

export function isBedrockEmbeddingModel(model: string): model is BedrockEmbeddingModel {
  return Object.hasOwn(BEDROCK_EMBEDDING_MODELS, model);
}

/** How the service reaches Bedrock: the models, and where (the default credential chain signs). */
export interface BedrockSettings {
  /** A foundation model id (`amazon.nova-lite-v1:0`) or an inference profile id (`us.amazon.nova-lite-v1:0`). */
  readonly answerModel: string;
  readonly embeddingModel: BedrockEmbeddingModel;
  /** @default the model's own length */
  readonly embeddingDimensions?: number | undefined;
  /** @default the SDK's: `AWS_REGION`, then the profile's */
  readonly region?: string | undefined;
  /** A stand-in's address (`AWS_ENDPOINT_URL_BEDROCK_RUNTIME`). @default Bedrock Runtime's, for the region */
  readonly endpoint?: string | undefined;
}

/**
 * The id and vector length of a Bedrock embedder, checked: what the stack
 * needs to create its chunk index, and the id stored with every chunk.
 *
 * @example bedrockEmbedderIdentity({ model: 'amazon.titan-embed-text-v2:0', dimensions: 512 })
 * // { id: 'bedrock/amazon.titan-embed-text-v2:0/512', dimensions: 512 }
 */
export function bedrockEmbedderIdentity(
  options: { readonly model?: string; readonly dimensions?: number } = {},
): { readonly id: string; readonly dimensions: number } {
  const model = options.model ?? BEDROCK_DEFAULTS.embeddingModel;
  if (!isBedrockEmbeddingModel(model)) {
    throw new RangeError(
      `The Bedrock embedding model ${model} is not one the service can call (${BEDROCK_EMBEDDING_MODEL_IDS.join(', ')})`,
    );
  }
  const allowed: readonly number[] = BEDROCK_EMBEDDING_MODELS[model].dimensions;
  const dimensions = options.dimensions ?? allowed[0] ?? 0;
  if (!allowed.includes(dimensions)) {
    throw new RangeError(
      `The Bedrock embedding model ${model} makes vectors of ${allowed.join(', ')} dimensions, not ${dimensions}`,
    );
  }
  return { id: `bedrock/${model}/${dimensions}`, dimensions };
}

/** Whether an embedding model makes vectors of this length (undefined: the model's own). */
export function bedrockDimensionsFit(
  model: string | undefined,
  dimensions: number | undefined,
): boolean {
  try {
    bedrockEmbedderIdentity({
      ...(model ? { model } : {}),
      ...(dimensions === undefined ? {} : { dimensions }),
    });
    return true;
  } catch {
    return false;
  }
}

/**
 * Cross-region inference profiles start with a geography (`us.`, `eu.`,
 * `apac.`, …) or `global.`; what follows is the foundation model's id.
 */
const INFERENCE_PROFILE_PREFIX = /^(us|us-gov|eu|apac|jp|au|ca|global)\.(.+)$/;

/** The profile's prefix and its foundation model, or `null` for a foundation model id. */
export function inferenceProfileOf(
  modelId: string,
): { readonly geography: string; readonly foundationModel: string } | null {
  const match = INFERENCE_PROFILE_PREFIX.exec(modelId);
  return match?.[1] && match[2] ? { geography: match[1], foundationModel: match[2] } : null;
}

/** The foundation model a model id answers with: itself, or an inference profile's model. */
export function foundationModelOf(modelId: string): string {
  return inferenceProfileOf(modelId)?.foundationModel ?? modelId;
}
