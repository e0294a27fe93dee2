import * as z from 'zod/mini';
import {
  agentList,
  agentResource,
  modelChoice,
  modelChoiceList,
} from '../../functions/agents/agent.schema';
import { analyticsResult } from '../../functions/analytics/analytics.schema';
import { meResource, sessionAccess, sessionResource } from '../../functions/auth/auth.schema';
import { disconnection, startedConnection } from '../../functions/connections/connections.schema';
import {
  dataSourceList,
  dataSourceResource,
  skippedDocument,
  syncAccepted,
  syncJobResource,
  syncStatusResource,
} from '../../functions/data-sources/data-source.schema';
import {
  deleteDocumentsResult,
  documentChunks,
  documentList,
  documentResource,
} from '../../functions/data-sources/document.schema';
import {
  fileUploadBatch,
  fileUploadTicket,
  uploadedFileList,
  uploadedFileResource,
} from '../../functions/data-sources/file.schema';
import {
  evaluationList,
  evaluationResource,
  evaluationResultResource,
  evaluationTotalsResource,
  evaluationWithResults,
} from '../../functions/evals/evaluation.schema';
import {
  interactionList,
  interactionResource,
} from '../../functions/interactions/interaction.schema';
import {
  kbArticleList,
  kbArticleResource,
  kbArticleSummaryResource,
  kbArticleVersionList,
  kbArticleVersionResource,
} from '../../functions/kb/kb-article.schema';
import { modelKeyList, modelKeyResource } from '../../functions/model-keys/model-key.schema';
import {
  apiKeyList,
  apiKeyResource,
  createdApiKeyResource,
} from '../../functions/organizations/api-key.schema';
import { organizationResource } from '../../functions/organizations/organization.schema';
import { queryResult, queryStreamEvents } from '../../functions/query/query.schema';
import { semanticSearchResult } from '../../functions/search/search.schema';
import {
  ssoConfigurationResource,
  ssoDomainList,
  ssoDomainResource,
} from '../../functions/sso/sso.schema';
import { groupList, groupResource, memberList } from '../../functions/users/group.schema';
import {
  createdUserResource,
  invitationResource,
  userList,
} from '../../functions/users/user.schema';
import {
  deliveryList,
  deliveryResource,
  deliveryWithPayload,
  sourceIpsResource,
  testEventResult,
  webhookList,
  webhookResource,
  webhookWithSecret,
} from '../../functions/webhooks/webhook.schema';
import { citedSourceResource } from '../../layers/core/http/cited-source.schema';
import {
  anyErrorBody,
  ERROR_BODIES,
  fieldIssue,
  forbiddenDetails,
  invalidRequestDetails,
  modelProviderRefusedDetails,
  rateLimitDetails,
  serviceUnavailableDetails,
} from '../../layers/core/http/error-body.schema';
import { userResource } from '../../layers/core/http/user.schema';

/**
 * The names generated clients see: every resource, list and error the API
 * answers with becomes one component schema, referenced with `$ref` wherever
 * it appears, so a client has an `Agent` type to import rather than one
 * anonymous copy per operation. A schema not named here stays inline.
 */
export const COMPONENT_NAMES: ReadonlyArray<readonly [z.core.$ZodType, string, string?]> = [
  [agentResource, 'Agent', 'An agent: the data sources it answers from and how it answers'],
  [agentList, 'AgentList'],
  [
    modelChoice,
    'ModelChoice',
    "Where an agent's answers can come from (the service's provider or a model key) and its models",
  ],
  [modelChoiceList, 'ModelChoiceList'],
  [
    dataSourceResource,
    'DataSource',
    'Where documents come from: files, a website, a connector, the knowledge base',
  ],
  [dataSourceList, 'DataSourceList'],
  [syncJobResource, 'SyncJob', "One run of reading a data source's documents into the index"],
  [skippedDocument, 'SkippedDocument', 'A document a sync did not index, and why'],
  [syncAccepted, 'SyncAccepted'],
  [syncStatusResource, 'SyncStatus', "A data source's sync progress"],
  [uploadedFileResource, 'UploadedFile', 'A file uploaded to a files data source'],
  [uploadedFileList, 'UploadedFileList'],
  [fileUploadTicket, 'FileUploadTicket', 'Where and how to upload one file'],
  [fileUploadBatch, 'FileUploadBatch'],
  [
    documentResource,
    'SourceDocument',
    'One document of a data source: an uploaded file, or a document its sync indexed',
  ],
  [documentList, 'SourceDocumentList'],
  [
    deleteDocumentsResult,
    'DocumentsDeleted',
    'What a bulk delete deleted, and what failed and why',
  ],
  [documentChunks, 'DocumentChunks', "A document's chunks, in reading order"],
  [webhookResource, 'Webhook', 'A receiver of event notifications'],
  [webhookWithSecret, 'WebhookWithSecret', 'A webhook with its signing secret, shown once'],
  [webhookList, 'WebhookList'],
  [deliveryResource, 'Delivery', 'One event sent (or to be sent) to a webhook'],
  [deliveryWithPayload, 'DeliveryWithPayload'],
  [deliveryList, 'DeliveryList'],
  [testEventResult, 'WebhookTestResult'],
  [sourceIpsResource, 'WebhookSourceIps'],
  [citedSourceResource, 'CitedSource', 'A passage an answer is based on, and where it comes from'],
  [queryResult, 'QueryResult', 'An answer with its cited sources'],
  [
    queryStreamEvents.sources,
    'QueryStreamSources',
    "The `data` of a streamed answer's `sources` event",
  ],
  [
    queryStreamEvents.delta,
    'QueryStreamDelta',
    "The `data` of a streamed answer's `delta` event: the next piece of text",
  ],
  [
    queryStreamEvents.done,
    'QueryStreamDone',
    "The `data` of a streamed answer's `done` event: the result, its sources without their text",
  ],
  [semanticSearchResult, 'SemanticSearchResult'],
  [interactionResource, 'Interaction', 'A question asked of an agent, its answer and feedback'],
  [interactionList, 'InteractionList'],
  [analyticsResult, 'Analytics'],
  [userResource, 'User', 'A person of the organization; never a password'],
  [createdUserResource, 'CreatedUser', 'A new user with the invitation to pass on'],
  [invitationResource, 'Invitation'],
  [userList, 'UserList'],
  [groupResource, 'Group', 'People given a role and access to agents together'],
  [groupList, 'GroupList'],
  [memberList, 'GroupMemberList'],
  [organizationResource, 'Organization'],
  [apiKeyResource, 'ApiKey', 'An API key, never its secret'],
  [createdApiKeyResource, 'CreatedApiKey', 'A new API key with its secret, shown once'],
  [apiKeyList, 'ApiKeyList'],
  [
    sessionResource,
    'Session',
    'A signed-in session: the user and the CSRF token to send with changes',
  ],
  [sessionAccess, 'SessionAccess'],
  [meResource, 'Me'],
  [ssoConfigurationResource, 'SsoConfiguration'],
  [ssoDomainResource, 'SsoDomain'],
  [ssoDomainList, 'SsoDomainList'],
  [startedConnection, 'ConnectionStart'],
  [disconnection, 'Disconnection'],
  [kbArticleResource, 'KbArticle', 'A knowledge base article'],
  [kbArticleSummaryResource, 'KbArticleSummary'],
  [kbArticleList, 'KbArticleList'],
  [kbArticleVersionResource, 'KbArticleVersion'],
  [kbArticleVersionList, 'KbArticleVersionList'],
  [
    modelKeyResource,
    'ModelKey',
    "The organization's own key to a model provider, never the key itself",
  ],
  [modelKeyList, 'ModelKeyList'],
  [evaluationResource, 'Evaluation', 'A run of questions through an agent, scored'],
  [evaluationWithResults, 'EvaluationWithResults'],
  [evaluationResultResource, 'EvaluationResult'],
  [evaluationTotalsResource, 'EvaluationTotals'],
  [evaluationList, 'EvaluationList'],
  [fieldIssue, 'FieldIssue'],
  [invalidRequestDetails, 'InvalidRequestDetails'],
  [forbiddenDetails, 'ForbiddenDetails'],
  [rateLimitDetails, 'RateLimitDetails'],
  [serviceUnavailableDetails, 'ServiceUnavailableDetails'],
  [modelProviderRefusedDetails, 'ModelProviderRefusedDetails'],
  ...Object.entries(ERROR_BODIES).map(([name, schema]) => [schema, name] as const),
  [anyErrorBody, 'ApiError', 'Any error of the /api/v1 paths, told apart by `error.code`'],
];

let registered = false;

/**
 * Gives each schema above its component name (the `id` zod's JSON Schema
 * conversion extracts into `$defs`), keeping any description it already has.
 * Once per process: zod refuses an id given twice.
 */
export function registerComponentNames(): void {
  if (registered) return;
  registered = true;
  for (const [schema, id, description] of COMPONENT_NAMES) {
    const known = z.globalRegistry.get(schema);
    z.globalRegistry.add(schema, { ...known, id, ...(description ? { description } : {}) });
  }
}
