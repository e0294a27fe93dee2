/**
 * The document's tags: one per family of routes, in the order a newcomer
 * meets them, each saying what the family is for. Every operation carries
 * its family's tag; a test checks each tag used is described here.
 */
export const TAG_DESCRIPTIONS: Readonly<Record<string, string>> = {
  query:
    'Ask an agent a question and get an answer with its cited sources, whole or streamed as server-sent events',
  search: "Semantic search over an organization's indexed data sources, without an answer",
  agents: 'Agents: which data sources each answers from, with which model and retrieval strategy',
  'data-sources':
    "Data sources: uploaded files, websites, connected applications and the organization's knowledge base; syncing them into the index",
  connections:
    'Connecting a data source to an application (Google Drive, SharePoint, Confluence, Slack) by signing in to it',
  kb: "The organization's knowledge base: articles written in the service, with their versions",
  interactions: 'Questions asked and answers given, with feedback on them',
  analytics: 'Usage over time: queries, latency, tokens, cost and feedback',
  evals: 'Evaluations: a set of questions run through an agent and scored',
  webhooks: 'Webhooks: event notifications sent to your receivers, and their deliveries',
  users: "The organization's people and groups, their roles and the agents they may use",
  organizations: "The organization's settings and its API keys",
  'model-keys': "The organization's own keys to model providers, which its agents can answer with",
  auth: 'Signing in with a password, the session, invitations and password resets',
  sso: 'Single sign-on (OIDC or SAML): its configuration, verified domains and the sign-in itself',
  mcp: "The Model Context Protocol server: an AI assistant or IDE lists the key's agents, asks them and searches, over Streamable HTTP",
  openai:
    'OpenAI-compatible chat completions: an OpenAI SDK or framework asks an agent by naming it as the model, whole or streamed',
};
