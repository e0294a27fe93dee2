import type { CloudConfigKey } from '../layers/core/config';

/** The model provider's settings: set only on the functions that call a model (ModelProvider). */
type ModelConfigKey =
  | 'MODEL_API_KEY_SECRET'
  | 'OPENAI_BASE_URL'
  | 'MODEL_API_KEY_MAX_AGE_SECONDS'
  | 'MODEL_PROVIDER'
  | 'BEDROCK_ANSWER_MODEL'
  | 'BEDROCK_EMBEDDING_MODEL'
  | 'BEDROCK_EMBEDDING_DIMENSIONS';
/** What the deployment answers with, told to the agents family only (FamilyVariable `deploymentModels`). */
type DeploymentModelsConfigKey = 'SVC_DEPLOYMENT_MODEL_PROVIDER' | 'SVC_DEPLOYMENT_ANSWER_MODEL';
/** The session secret's settings: set only on the functions that check sessions (SessionSigningSecret). */
type SessionConfigKey = 'SESSION_SECRET_ARN' | 'SESSION_SECRET_MAX_AGE_SECONDS';
/** SSO's optional settings: the public address (custom domain) on the sso function only. */
type SsoConfigKey = 'SVC_PUBLIC_URL' | 'SVC_DNS_SERVERS';
/** The console's origin, on the HTTP families only (their CSRF origin check). */
type ConsoleConfigKey = 'SVC_CONSOLE_ORIGIN';
/** The distribution's origin secret, on the HTTP families only (OriginVerifySecret). */
type OriginVerifyConfigKey = 'ORIGIN_VERIFY_SECRET_ARN' | 'ORIGIN_VERIFY_MAX_AGE_SECONDS';
/** The published delivery addresses, on the webhooks family only, and only with the VPC. */
type WebhookSourceConfigKey = 'SVC_WEBHOOK_SOURCE_IPS' | 'SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT';
/** The SES identity and From address, on the families that mail only (MailSender). */
type MailConfigKey = 'SVC_SES_IDENTITY_ARN' | 'SVC_MAIL_FROM';
/** Issue 12: the providers' apps secret, on the connections family and the sync worker only. */
type ConnectorConfigKey = 'CONNECTOR_APPS_SECRET_ARN' | 'CONNECTOR_APPS_MAX_AGE_SECONDS';
/**
 * The environment every function that builds dependencies gets: the names
 * of the stack's resources, each key layers/core/config.ts parses (a
 * function parses only the parts it uses; AWS_REGION comes from Lambda
 * itself). Names, not secrets, so every function may see them all.
 */
export type FunctionConfig = {
  readonly [K in Exclude<
    CloudConfigKey,
    | 'AWS_REGION'
    | ModelConfigKey
    | DeploymentModelsConfigKey
    | SessionConfigKey
    | SsoConfigKey
    | ConnectorConfigKey
    | ConsoleConfigKey
    | OriginVerifyConfigKey
    | WebhookSourceConfigKey
    | MailConfigKey
  >]: string;
};
