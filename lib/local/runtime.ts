import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { HOSTED_PROVIDER_URLS } from '../../layers/core/adapters/ai/provider-urls';
import { ATLASSIAN_ENDPOINTS } from '../../layers/core/adapters/connectors/confluence/confluence-oauth';
import { GOOGLE_ENDPOINTS } from '../../layers/core/adapters/connectors/google-drive/google-oauth';
import { MICROSOFT_ENDPOINTS } from '../../layers/core/adapters/connectors/sharepoint/microsoft-oauth';
import { createDocumentClient } from '../../layers/core/adapters/dynamodb/document-client';
import type { LocalQueue } from '../../layers/core/adapters/local/local-queue';
import { SmtpMailer } from '../../layers/core/adapters/mail/smtp-mailer';
import { UnsentMail } from '../../layers/core/adapters/mail/unsent-mail';
import { webhookSourceAddresses } from '../../layers/core/domain/webhook-source-addresses';
import { ROUTES } from '../../layers/core/http/routes/route-table';
import { type Clock, systemClock } from '../../layers/core/ports/clock.port';
import type { Dependencies } from '../../layers/core/ports/dependencies.port';
import type { Mailer, MailMessage } from '../../layers/core/ports/mailer.port';
import type { DeliveryMessage } from '../../layers/core/ports/webhook-repository.port';
import { provideDependencies } from '../../layers/core/wiring/composition-root';
import { BackgroundWorkers } from './background-workers';
import { type BootstrapResult, bootstrap, recordBootstrapKeyShown } from './bootstrap';
import { consoleSite } from './console-site';
import { prepareDataDirectory } from './data-directory';
import { handleDownload, LOCAL_DOWNLOAD_PATH } from './download-endpoint';
import { type LocalDynamoDb, startDynalite } from './dynalite-server';
import { FIRST_ADMINISTRATOR_ROUTES, firstAdministratorFunction } from './first-administrator';
import {
  EVAL_WORKER,
  FALLBACK_FUNCTION,
  INGESTION_WORKER,
  LOCAL_FUNCTIONS,
  SYNC_WORKER,
  WEBHOOK_DISPATCHER,
} from './functions';
import { type AccessLogLine, type LocalGateway, startGateway } from './gateway';
import type { LocalConfig } from './local-config';
import { localDependencies, queueTableName } from './local-dependencies';
import { localBedrockSettings, localOpenAiSettings, localRetrievalIndex } from './local-retrieval';
import { loadOrCreateMasterKey, loadOrCreateSessionKey } from './master-key';
import { requeueQueuedSyncs } from './requeue-queued-syncs';
import { migrateTable, scheduleEarlierDataSources } from './table-migration';
import { ensureTables, mainTableDefinition, queueTableDefinition } from './tables';
import { handleUpload, LOCAL_UPLOAD_PATH, objectCreatedEvent } from './upload-endpoint';

export interface LocalRuntime {
  readonly url: string;
  readonly dynamoDbEndpoint: string;
  readonly bootstrap: BootstrapResult;
  readonly dependencies: Dependencies;
  readonly client: DynamoDBDocumentClient;
  /** The outbox sweep and the deliveries consumer; `step()` runs one round by hand. */
  readonly workers: BackgroundWorkers;
  /** The deliveries queue the workers consume (tests receive from it to play a crashing consumer). */
  readonly deliveryQueue: LocalQueue<DeliveryMessage>;
  /** Stops the services in reverse order of their start. */
  end(): Promise<void>;
}

/**
 * Starts the whole service on one machine (ARCHITECTURE.md): dynalite, its
 * tables, the same handlers wired to local adapters, the first-start
 * bootstrap, and the gateway. Each service stops in reverse order.
 */
export async function startLocalRuntime(
  config: LocalConfig,
  options: {
    readonly clock?: Clock;
    readonly onRequest?: (line: AccessLogLine) => void;
    /**
     * Shows the started service (and a new bootstrap key) to its user; the
     * bootstrap counts as done only after it returns. Without it, the caller
     * gets the key in the returned runtime.
     */
    readonly announce?: (runtime: LocalRuntime) => void;
    /**
     * A mail that was not sent because `SVC_SMTP_URL` is unset
     * (an invitation, a password reset), with its link; `npm start` prints
     * it. Without it, invitations reach only the administrator who created
     * the user (in the response).
     */
    readonly onUnsentMail?: (about: MailMessage['about']) => void;
    /** The built web console (web/dist) to serve at `/`; without it, `/` is a 404 as in API Gateway. */
    readonly consoleDirectory?: string;
  } = {},
): Promise<LocalRuntime> {
  const stops: Array<() => Promise<void>> = [];
  const end = async () => {
    for (const stop of stops.reverse()) await stop();
  };
  try {
    if (!config.SVC_IN_MEMORY) prepareDataDirectory(config.dataDir);
    const dynamo: LocalDynamoDb = await startDynalite({
      host: '127.0.0.1',
      port: config.SVC_DYNAMODB_PORT,
      path: config.SVC_IN_MEMORY ? undefined : join(config.dataDir, 'dynamodb'),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') {
        throw new Error(
          `Port ${config.SVC_DYNAMODB_PORT} (SVC_DYNAMODB_PORT) is in use: is another instance running?`,
        );
      }
      throw error;
    });
    stops.push(() => dynamo.end());

    const client = createDocumentClient({ endpoint: dynamo.endpoint });
    stops.push(async () => client.destroy());
    if (!config.SVC_IN_MEMORY) {
      // A table kept by an earlier version may lack an index (GSI2): rebuilt first.
      await migrateTable(client, mainTableDefinition(config.SVC_TABLE_NAME), {
        backupDir: config.dataDir,
        upgradeItem: scheduleEarlierDataSources((options.clock ?? systemClock).now()),
      });
    }
    await ensureTables(client, [
      mainTableDefinition(config.SVC_TABLE_NAME),
      queueTableDefinition(queueTableName(config.SVC_TABLE_NAME)),
    ]);

    // The upload address is the gateway's, known once it listens (port 0 in tests).
    let gatewayUrl = `http://${config.HOST}:${config.PORT}`;
    const {
      dependencies,
      deliveryQueue,
      syncQueue,
      ingestionQueue,
      evaluationQueue,
      fileStorage,
      parsingProcess,
    } = localDependencies({
      client,
      tableName: config.SVC_TABLE_NAME,
      masterKey: loadOrCreateMasterKey(
        config.SVC_IN_MEMORY ? null : join(config.dataDir, 'master.key'),
      ),
      allowPrivateUrls: config.SVC_ALLOW_PRIVATE_URLS,
      ...(config.SVC_EXTRA_CA_FILE
        ? { extraCaCertificates: [readFileSync(config.SVC_EXTRA_CA_FILE, 'utf8')] }
        : {}),
      webhookTimeoutMs: config.SVC_WEBHOOK_TIMEOUT_MS,
      crawlBudget: {
        maxTotalBytes: config.SVC_CRAWL_MAX_MB * 1024 * 1024,
        maxDurationMs: config.SVC_CRAWL_TIME_LIMIT_SECONDS * 1000,
      },
      parsing: {
        timeoutMs: config.SVC_PARSE_TIMEOUT_SECONDS * 1000,
        memoryMb: config.SVC_PARSE_MEMORY_MB,
      },
      retrieval: localRetrievalIndex(config),
      openAi: localOpenAiSettings(config),
      bedrock: localBedrockSettings(config),
      providerUrls: {
        openai: config.SVC_MODEL_KEY_OPENAI_URL ?? HOSTED_PROVIDER_URLS.openai,
        anthropic: config.SVC_MODEL_KEY_ANTHROPIC_URL ?? HOSTED_PROVIDER_URLS.anthropic,
      },
      ...(options.clock ? { clock: options.clock } : {}),
      blobDirectory: config.SVC_IN_MEMORY ? null : join(config.dataDir, 'blobs'),
      uploadUrl: () => `${gatewayUrl}${LOCAL_UPLOAD_PATH}`,
      downloadUrl: () => `${gatewayUrl}${LOCAL_DOWNLOAD_PATH}`,
      ...(config.SVC_DNS_SERVERS ? { dnsServers: config.SVC_DNS_SERVERS } : {}),
      publicBaseUrl: () => config.SVC_PUBLIC_URL ?? gatewayUrl,
      ...(config.SVC_CONSOLE_ORIGIN ? { consoleOrigin: config.SVC_CONSOLE_ORIGIN } : {}),
      ...(config.SVC_ORIGIN_VERIFY_SECRET ? { originSecret: config.SVC_ORIGIN_VERIFY_SECRET } : {}),
      webhookSourceAddresses: webhookSourceAddresses(
        config.SVC_WEBHOOK_SOURCE_IPS,
        config.SVC_WEBHOOK_SOURCE_IPS_CHANGED_AT ?? null,
      ),
      ...localConnectorSettings(config),
      sessionKey: loadOrCreateSessionKey(
        config.SVC_IN_MEMORY ? null : join(config.dataDir, 'session.key'),
      ),
      mailer: localMailer(config, options.onUnsentMail, stops),
    });
    stops.push(() => parsingProcess.close());
    provideDependencies(dependencies);
    const bootstrapped = await bootstrap(
      dependencies,
      client,
      config.SVC_TABLE_NAME,
      config.SVC_BOOTSTRAP_KEY,
      config.SVC_BOOTSTRAP_ADMIN_EMAIL && config.SVC_BOOTSTRAP_ADMIN_PASSWORD
        ? { email: config.SVC_BOOTSTRAP_ADMIN_EMAIL, password: config.SVC_BOOTSTRAP_ADMIN_PASSWORD }
        : undefined,
    );

    const gateway: LocalGateway = await startGateway({
      host: config.HOST,
      port: config.PORT,
      // The first administrator's two routes, which only this runtime has.
      routes: [...ROUTES, ...FIRST_ADMINISTRATOR_ROUTES],
      functions: {
        ...LOCAL_FUNCTIONS,
        'local-setup': firstAdministratorFunction({
          deps: dependencies,
          orgId: bootstrapped.organization.id,
          client,
          tableName: config.SVC_TABLE_NAME,
          fallback: FALLBACK_FUNCTION,
        }),
      },
      fallback: FALLBACK_FUNCTION,
      ...(options.consoleDirectory ? { console: consoleSite(options.consoleDirectory) } : {}),
      // S3's part: presigned uploads land here, and their "event notification" is the ingestion queue.
      services: {
        [LOCAL_UPLOAD_PATH]: (request, response) =>
          handleUpload(request, response, fileStorage, async (key, size) => {
            await ingestionQueue.send(objectCreatedEvent(key, size, Date.now()));
          }),
        // S3's presigned GET: where a cited file's content route redirects.
        [LOCAL_DOWNLOAD_PATH]: (request, response) =>
          handleDownload(request, response, fileStorage),
      },
      ...(options.onRequest ? { onRequest: options.onRequest } : {}),
    }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'EADDRINUSE') throw new Error(`Port ${config.PORT} (PORT) is in use`);
      throw error;
    });
    stops.push(() => gateway.end());
    gatewayUrl = gateway.url;

    // This runtime is the only consumer of uploads, syncs and deliveries: what a run that died (kill -9,
    // a crash) had received comes back now instead of after its visibility timeout, with its receive
    // count, so work that kills the runtime every time still ends (issue 14), and webhook deliveries
    // in flight go out at once; retries waiting for their time keep it (issue 13).
    await ingestionQueue.releaseReceived();
    await syncQueue.releaseReceived();
    await evaluationQueue.releaseReceived();
    await deliveryQueue.releaseReceived();
    // A job recorded by a run that died before it sent the job's message.
    await requeueQueuedSyncs(client, config.SVC_TABLE_NAME, syncQueue);
    const workers = new BackgroundWorkers(dependencies, {
      deliveryQueue,
      dispatcher: WEBHOOK_DISPATCHER,
      syncQueue,
      syncWorker: SYNC_WORKER,
      ingestionQueue,
      ingestionWorker: INGESTION_WORKER,
      evaluationQueue,
      evalWorker: EVAL_WORKER,
    });
    workers.start(config.SVC_WORKER_INTERVAL_MS, {
      scheduleIntervalMs: config.SVC_SCHEDULER_INTERVAL_MS,
    });
    stops.push(() => workers.stop());

    const runtime: LocalRuntime = {
      url: gateway.url,
      dynamoDbEndpoint: dynamo.endpoint,
      bootstrap: bootstrapped,
      dependencies,
      client,
      workers,
      deliveryQueue,
      end,
    };
    options.announce?.(runtime);
    // Only now has the key reached its user; a start that failed earlier left it unshown (bootstrap.ts).
    if (bootstrapped.newKey) await recordBootstrapKeyShown(client, config.SVC_TABLE_NAME);
    return runtime;
  } catch (error) {
    await end();
    throw error;
  }
}

/** Issue 12: the providers' apps and endpoints from the environment. */
function localConnectorSettings(config: LocalConfig) {
  const confluence =
    config.SVC_CONFLUENCE_CLIENT_ID && config.SVC_CONFLUENCE_CLIENT_SECRET
      ? {
          clientId: config.SVC_CONFLUENCE_CLIENT_ID,
          clientSecret: config.SVC_CONFLUENCE_CLIENT_SECRET,
        }
      : undefined;
  const atlassian =
    config.SVC_ATLASSIAN_AUTH_URL || config.SVC_ATLASSIAN_API_URL
      ? {
          confluence: {
            authBaseUrl: config.SVC_ATLASSIAN_AUTH_URL ?? ATLASSIAN_ENDPOINTS.authBaseUrl,
            apiBaseUrl: config.SVC_ATLASSIAN_API_URL ?? ATLASSIAN_ENDPOINTS.apiBaseUrl,
          },
        }
      : undefined;
  const googleDrive =
    config.SVC_GOOGLE_DRIVE_CLIENT_ID && config.SVC_GOOGLE_DRIVE_CLIENT_SECRET
      ? {
          clientId: config.SVC_GOOGLE_DRIVE_CLIENT_ID,
          clientSecret: config.SVC_GOOGLE_DRIVE_CLIENT_SECRET,
        }
      : undefined;
  const google =
    config.SVC_GOOGLE_AUTH_URL || config.SVC_GOOGLE_TOKEN_URL || config.SVC_GOOGLE_API_URL
      ? {
          google_drive: {
            authBaseUrl: config.SVC_GOOGLE_AUTH_URL ?? GOOGLE_ENDPOINTS.authBaseUrl,
            tokenBaseUrl: config.SVC_GOOGLE_TOKEN_URL ?? GOOGLE_ENDPOINTS.tokenBaseUrl,
            apiBaseUrl: config.SVC_GOOGLE_API_URL ?? GOOGLE_ENDPOINTS.apiBaseUrl,
          },
        }
      : undefined;
  const sharepoint =
    config.SVC_SHAREPOINT_CLIENT_ID && config.SVC_SHAREPOINT_CLIENT_SECRET
      ? {
          clientId: config.SVC_SHAREPOINT_CLIENT_ID,
          clientSecret: config.SVC_SHAREPOINT_CLIENT_SECRET,
        }
      : undefined;
  const microsoft =
    config.SVC_MICROSOFT_AUTH_URL || config.SVC_MICROSOFT_GRAPH_URL
      ? {
          sharepoint: {
            authBaseUrl: config.SVC_MICROSOFT_AUTH_URL ?? MICROSOFT_ENDPOINTS.authBaseUrl,
            graphBaseUrl: config.SVC_MICROSOFT_GRAPH_URL ?? MICROSOFT_ENDPOINTS.graphBaseUrl,
          },
        }
      : undefined;
  const slack =
    config.SVC_SLACK_CLIENT_ID && config.SVC_SLACK_CLIENT_SECRET
      ? { clientId: config.SVC_SLACK_CLIENT_ID, clientSecret: config.SVC_SLACK_CLIENT_SECRET }
      : undefined;
  const slackEndpoints = config.SVC_SLACK_URL
    ? { slack: { baseUrl: config.SVC_SLACK_URL } }
    : undefined;
  const endpoints =
    atlassian || google || microsoft || slackEndpoints
      ? { ...atlassian, ...google, ...microsoft, ...slackEndpoints }
      : undefined;
  return {
    connectorApps: {
      ...(confluence ? { confluence } : {}),
      ...(googleDrive ? { google_drive: googleDrive } : {}),
      ...(sharepoint ? { sharepoint } : {}),
      ...(slack ? { slack } : {}),
    },
    ...(endpoints ? { connectorEndpoints: endpoints } : {}),
  };
}

/**
 * Mail on one machine: SMTP through `SVC_SMTP_URL` (closed when the
 * runtime ends), else each mail's link handed to `onUnsentMail`.
 */
function localMailer(
  config: LocalConfig,
  onUnsentMail: ((about: MailMessage['about']) => void) | undefined,
  stops: Array<() => Promise<void>>,
): Mailer {
  if (!config.SVC_SMTP_URL) return new UnsentMail((about) => onUnsentMail?.(about));
  const smtp = new SmtpMailer(config.SVC_SMTP_URL, config.SVC_MAIL_FROM, (failure) =>
    console.error(
      `Mail not sent (${failure.kind} for ${failure.user_id} of ${failure.org_id}): ${failure.error}`,
    ),
  );
  stops.push(async () => smtp.close());
  return smtp;
}
