import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ServiceFunction } from './service-function';

export interface ModelProviderProps {
  /**
   * The Secrets Manager secret holding the API key, made by the operator:
   * its name, or its complete ARN.
   */
  readonly apiKeySecret: string;
  /** An OpenAI-compatible endpoint instead of OpenAI's. */
  readonly baseUrl?: string;
}

/**
 * The deployment's model provider (issue 8): an existing secret
 * with the OpenAI (or compatible) API key. A function connected to it is
 * told the secret's name, never its value, and may read it; it reads the
 * key at its first model call and again when its cache expires
 * (layers/core/wiring/cloud/cloud-models.ts), so a rotated key takes effect
 * without a deploy.
 *
 * @example
 * const models = new ModelProvider(this, 'Models', { apiKeySecret: 'agent-query-service/openai' });
 * models.connect(queryFunction);
 */
export class ModelProvider extends Construct {
  readonly secret: secretsmanager.ISecret;
  /** The OpenAI-compatible endpoint, when it is not OpenAI's own. */
  readonly baseUrl: string | undefined;
  readonly #environment: Readonly<Record<string, string>>;

  constructor(scope: Construct, id: string, props: ModelProviderProps) {
    super(scope, id);
    // A name grants read on `name-??????` (the suffix Secrets Manager adds);
    // an ARN is taken as it is.
    this.secret = props.apiKeySecret.startsWith('arn:')
      ? secretsmanager.Secret.fromSecretCompleteArn(this, 'ApiKey', props.apiKeySecret)
      : secretsmanager.Secret.fromSecretNameV2(this, 'ApiKey', props.apiKeySecret);
    this.baseUrl = props.baseUrl;
    this.#environment = {
      MODEL_API_KEY_SECRET: props.apiKeySecret,
      ...(props.baseUrl ? { OPENAI_BASE_URL: props.baseUrl } : {}),
    };
  }

  /** Lets `target` call the model: its environment names the secret and its role may read it. */
  connect(target: ServiceFunction): void {
    for (const [name, value] of Object.entries(this.#environment)) {
      target.function.addEnvironment(name, value);
    }
    this.secret.grantRead(target.role);
  }
}
