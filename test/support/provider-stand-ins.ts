/**
 * `npm run stand-ins`: the four connector providers' loopback stand-ins
 * (the emulators the e2e suites run: Atlassian, Slack, Google and
 * Microsoft, each speaking its provider's documented wire format), started
 * together with a little content, so that a person or a script can try the
 * connectors against `npm start` from sign-in to cited answers (issue 12's
 * black-box check). It prints the settings to start the service with, a
 * data source `config` per provider, and a control address to act as the
 * provider would: revoke the service's access, delete an item.
 *
 * Consent is given at once (a stand-in has no login page), so following the
 * `oauth/start` redirect with curl completes the sign-in. Everything is kept
 * in memory: a restart issues new app credentials and forgets every grant.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Clock, systemClock } from '../../layers/core/ports/clock.port';
import { ConfluenceEmulator } from './confluence-emulator';
import { DRIVE_TYPES, GoogleDriveEmulator } from './google-drive-emulator';
import { MicrosoftGraphEmulator } from './microsoft-graph-emulator';
import { SlackEmulator } from './slack-emulator';

export const PROVIDERS = ['confluence', 'slack', 'google_drive', 'sharepoint'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** An item a stand-in serves, as the control address names it. */
export interface StandInItem {
  readonly id: string;
  readonly title: string;
}

export interface ProviderStandIns {
  /** The service's settings (D36 variables) that point each connector at its stand-in. */
  readonly env: Readonly<Record<string, string>>;
  /** A data source `config` (D26) that reads each stand-in's content. */
  readonly configs: Readonly<Record<Provider, Record<string, unknown>>>;
  /** Where to revoke access or delete an item, as the provider's user would. */
  readonly controlUrl: string;
  items(): Record<Provider, StandInItem[]>;
  close(): Promise<void>;
}

interface ControlActions {
  revoke(): void;
  /** `false` when the stand-in serves no such item. */
  remove(id: string): boolean;
}

const ENG_CHANNEL = 'C0ENG00001';
const DOCS_FOLDER = 'fold-handbook';
const DRIVE_NAME = 'Shared Documents';

/** Starts the four stand-ins, their content and the control server (`port` 0: any free one). */
export async function startProviderStandIns(
  options: { readonly port?: number; readonly clock?: Clock } = {},
): Promise<ProviderStandIns> {
  const clock = options.clock ?? systemClock;
  const confluence = await new ConfluenceEmulator(clock).start();
  const slack = await new SlackEmulator(clock).start();
  const drive = await new GoogleDriveEmulator(clock).start();
  const graph = await new MicrosoftGraphEmulator(clock).start();

  const content = seed({ confluence, slack, drive, graph }, clock);

  const env = {
    // D35: the stand-ins are on loopback, which only local runs and tests may reach.
    SVC_ALLOW_PRIVATE_URLS: 'true',
    SVC_CONFLUENCE_CLIENT_ID: confluence.clientId,
    SVC_CONFLUENCE_CLIENT_SECRET: confluence.clientSecret,
    SVC_ATLASSIAN_AUTH_URL: confluence.origin,
    SVC_ATLASSIAN_API_URL: confluence.origin,
    SVC_SLACK_CLIENT_ID: slack.clientId,
    SVC_SLACK_CLIENT_SECRET: slack.clientSecret,
    SVC_SLACK_URL: slack.origin,
    SVC_GOOGLE_DRIVE_CLIENT_ID: drive.clientId,
    SVC_GOOGLE_DRIVE_CLIENT_SECRET: drive.clientSecret,
    SVC_GOOGLE_AUTH_URL: drive.origin,
    SVC_GOOGLE_TOKEN_URL: drive.origin,
    SVC_GOOGLE_API_URL: drive.origin,
    SVC_SHAREPOINT_CLIENT_ID: graph.clientId,
    SVC_SHAREPOINT_CLIENT_SECRET: graph.clientSecret,
    SVC_MICROSOFT_AUTH_URL: graph.authUrl,
    SVC_MICROSOFT_GRAPH_URL: graph.graphUrl,
  };
  const configs: Record<Provider, Record<string, unknown>> = {
    confluence: { base_url: confluence.siteUrl, space_keys: ['ENG'] },
    slack: { channel_ids: [ENG_CHANNEL] },
    google_drive: { folder_ids: [DOCS_FOLDER] },
    sharepoint: { site_url: graph.siteUrl },
  };

  /** What the provider's user can do: take the app's access away, or delete an item. */
  const removeAt: Record<Provider, (id: string) => void> = {
    confluence: (id) => confluence.remove(id),
    slack: (ts) => slack.deleteThread(ENG_CHANNEL, ts),
    google_drive: (id) => drive.remove(id),
    sharepoint: (id) => graph.remove(content.driveId, id),
  };
  const revokeAt: Record<Provider, () => void> = {
    confluence: () => confluence.revokeEverything(),
    // Slack keeps one installation per workspace: uninstalling the app ends its tokens.
    slack: () => slack.uninstall(),
    google_drive: () => drive.revokeEverything(),
    sharepoint: () => graph.revokeEverything(),
  };
  const actions: Record<Provider, ControlActions> = Object.fromEntries(
    PROVIDERS.map((provider) => [
      provider,
      {
        revoke: revokeAt[provider],
        remove(id: string): boolean {
          if (!content.forget(provider, id)) return false;
          removeAt[provider](id);
          return true;
        },
      },
    ]),
  ) as Record<Provider, ControlActions>;

  const control = createServer((request, response) => {
    answerControl(request, response, {
      overview: () => ({ env, configs, items: content.items() }),
      actions,
    });
  });
  const closeEmulators = () =>
    Promise.all([confluence.close(), slack.close(), drive.close(), graph.close()]);
  try {
    await new Promise<void>((resolve, reject) => {
      control.once('error', reject);
      control.listen(options.port ?? 0, '127.0.0.1', () => {
        control.off('error', reject);
        resolve();
      });
    });
  } catch (error) {
    // A taken port (a second `npm run stand-ins`): say so, and leave nothing listening.
    await closeEmulators();
    throw error;
  }
  const controlUrl = `http://127.0.0.1:${(control.address() as AddressInfo).port}`;

  return {
    env,
    configs,
    controlUrl,
    items: () => content.items(),
    async close() {
      await closeServer(control);
      await closeEmulators();
    },
  };
}

/**
 * The control address: `GET /` (settings, configs, items), `POST /<provider>/revoke`,
 * `DELETE /<provider>/items/<id>`. Answers JSON; 404 for anything else.
 */
function answerControl(
  request: IncomingMessage,
  response: ServerResponse,
  control: { overview(): unknown; actions: Record<Provider, ControlActions> },
): void {
  request.resume();
  let answer: [number, unknown];
  try {
    answer = controlAnswer(request, control);
  } catch {
    answer = [400, { error: 'malformed path' }];
  }
  const [status, body] = answer;
  response.writeHead(status, { 'content-type': 'application/json' });
  response.end(`${JSON.stringify(body, null, 2)}\n`);
}

function controlAnswer(
  request: IncomingMessage,
  control: { overview(): unknown; actions: Record<Provider, ControlActions> },
): [number, unknown] {
  const [provider, action, id, ...rest] = new URL(request.url ?? '/', 'http://stand-ins').pathname
    .split('/')
    .filter((part) => part !== '')
    .map(decodeURIComponent);
  if (provider === undefined && request.method === 'GET') return [200, control.overview()];
  if (!PROVIDERS.includes(provider as Provider) || rest.length > 0) {
    return [404, { error: 'not found' }];
  }
  const actions = control.actions[provider as Provider];
  if (action === 'revoke' && id === undefined && request.method === 'POST') {
    actions.revoke();
    return [200, { revoked: provider }];
  }
  if (action === 'items' && id !== undefined && request.method === 'DELETE') {
    return actions.remove(id)
      ? [200, { deleted: id }]
      : [404, { error: `no item ${id} at ${provider}` }];
  }
  return [404, { error: 'not found' }];
}

function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A handful of items per provider, on one theme, so one agent can answer from all four. */
function seed(
  stand: {
    confluence: ConfluenceEmulator;
    slack: SlackEmulator;
    drive: GoogleDriveEmulator;
    graph: MicrosoftGraphEmulator;
  },
  clock: Clock,
) {
  const items: Record<Provider, StandInItem[]> = {
    confluence: [],
    slack: [],
    google_drive: [],
    sharepoint: [],
  };
  const when = clock.now().toISOString();

  for (const [id, title, body] of [
    [
      '2001',
      'Deploy runbook',
      '<h2>Rollback</h2><p>To roll back a deploy, run the pipeline named <strong>undo-release</strong> and wait for the canary.</p>',
    ],
    [
      '2002',
      'On-call',
      '<h2>Paging</h2><p>The on-call engineer answers a page within fifteen minutes, day or night.</p>',
    ],
  ] as const) {
    stand.confluence.put({ id, type: 'page', spaceKey: 'ENG', title, body, when });
    items.confluence.push({ id, title });
  }

  stand.slack.addUser('U0ADA00001', 'Ada Lovelace', 'ada');
  stand.slack.addUser('U0GRACE001', 'Grace Hopper', 'grace');
  stand.slack.addChannel(ENG_CHANNEL, 'engineering');
  const keys = stand.slack.post(ENG_CHANNEL, {
    user: 'U0ADA00001',
    text: 'How do we rotate the API signing keys?',
  });
  stand.slack.reply(ENG_CHANNEL, keys, {
    user: 'U0GRACE001',
    text: 'Run keyctl rotate --stage, then wait for the canary before promoting the new key.',
  });
  items.slack.push({ id: keys, title: 'How do we rotate the API signing keys?' });
  const coffee = stand.slack.post(ENG_CHANNEL, {
    user: 'U0GRACE001',
    text: 'The office coffee machine is descaled on Mondays.',
  });
  items.slack.push({ id: coffee, title: 'The office coffee machine is descaled on Mondays.' });

  stand.drive.put({
    id: DOCS_FOLDER,
    name: 'Handbook',
    mimeType: DRIVE_TYPES.folder,
    parents: ['root'],
    content: {},
  });
  stand.drive.put({
    id: 'doc-expenses',
    name: 'Expenses',
    mimeType: DRIVE_TYPES.doc,
    parents: [DOCS_FOLDER],
    content: {
      'text/markdown':
        '# Expenses\n\nTravel expenses are claimed within thirty days of the trip.\n',
      'text/plain': 'Expenses\nTravel expenses are claimed within thirty days of the trip.',
    },
  });
  stand.drive.put({
    id: 'sheet-holidays',
    name: 'Office holidays',
    mimeType: DRIVE_TYPES.sheet,
    parents: [DOCS_FOLDER],
    content: { 'text/csv': 'date,holiday\n2026-12-25,Christmas Day\n2027-01-01,New Year\n' },
  });
  items.google_drive.push(
    { id: 'doc-expenses', title: 'Expenses' },
    { id: 'sheet-holidays', title: 'Office holidays' },
  );

  const driveId = stand.graph.addDrive(DRIVE_NAME);
  for (const [path, text] of [
    ['Policies/Wifi.txt', 'The guest wifi password rotates every Monday at nine.'],
    ['Policies/Parking.txt', 'Visitors park on level two of the garage.'],
  ] as const) {
    const id = stand.graph.putFile(driveId, path, text, 'text/plain');
    items.sharepoint.push({ id, title: path });
  }

  return {
    driveId,
    items: () => structuredClone(items),
    /** Drops `id` from the list; `false` when the stand-in serves no such item. */
    forget(provider: Provider, id: string): boolean {
      const index = items[provider].findIndex((item) => item.id === id);
      if (index < 0) return false;
      items[provider].splice(index, 1);
      return true;
    },
  };
}

/** The settings as shell lines, for `eval` or a file. */
export function exportLines(env: Readonly<Record<string, string>>): string {
  return Object.entries(env)
    .map(([name, value]) => `export ${name}='${value}'`)
    .join('\n');
}

async function main(): Promise<void> {
  const port = Number(process.env.STAND_INS_PORT ?? 4100);
  const standIns = await startProviderStandIns({ port });
  const configs = Object.entries(standIns.configs)
    .map(([type, config]) => `  ${type.padEnd(13)} ${JSON.stringify(config)}`)
    .join('\n');
  process.stdout.write(
    [
      'Provider stand-ins on loopback (Atlassian, Slack, Google, Microsoft); consent is given at once.',
      '',
      'Start the service with these settings (in another shell):',
      '',
      exportLines(standIns.env),
      '',
      'Data source configs that read their content (type, then config):',
      configs,
      '',
      `Control (${standIns.controlUrl}):`,
      `  curl -s ${standIns.controlUrl}/                                # settings, configs and item ids`,
      `  curl -s -X POST ${standIns.controlUrl}/<type>/revoke             # the user takes access away`,
      `  curl -s -X DELETE ${standIns.controlUrl}/<type>/items/<id>       # the user deletes an item`,
      '',
      'Press Ctrl-C to stop (grants and app credentials are not kept).',
      '',
    ].join('\n'),
  );
  const stop = () => void standIns.close().then(() => process.exit(0));
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`stand-ins: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
