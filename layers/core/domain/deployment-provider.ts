/**
 * Which provider answers for the deployment itself (agents without a model
 * key). Its own module because every function's settings read it, and the
 * model lists and prices beside it in deployment-models.ts belong only to
 * the functions that choose a model.
 */
export const DEPLOYMENT_PROVIDERS = ['offline', 'openai', 'openai_compatible', 'bedrock'] as const;
export type DeploymentProvider = (typeof DEPLOYMENT_PROVIDERS)[number];
