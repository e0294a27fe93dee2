/**
 * `svc --help`, `svc <group> --help` and `svc <group> <command> --help`.
 * Kept beside each other so the texts agree with one another.
 */
const TARGET_OPTIONS = `Where it works:
  (default)            the local service: its DynamoDB on 127.0.0.1:$SVC_DYNAMODB_PORT (default 8000)
                       while \`npm start\` runs, or $SVC_DATA_DIR (default .data) directly when it does not
  --stack NAME         a deployed stack (e.g. AgentQueryService-live), with your own AWS credentials:
                       its table from the TableName output, its environment from its environment tag
  --region R           the stack's region (default: AWS_REGION, then your profile's)`;

export const COMMAND_HELP = {
  'orgs create': `Usage: svc orgs create --name NAME [--plan free|pro|enterprise] [--json] [--stack NAME [--region R]]

Creates an organization (plan default: free) and prints it; with --json, as JSON.`,
  'orgs list': `Usage: svc orgs list [--json] [--stack NAME [--region R]]

Lists every organization, oldest first. On a stack this reads the whole table (a Scan):
an operator's command, not for scripts that run often.`,
  'orgs update': `Usage: svc orgs update --org ORG_ID [--name NAME] [--plan free|pro|enterprise] [--clear-ip-allowlist]
                        [--json] [--stack NAME [--region R]]

Changes an organization as the operator: its plan (administrators cannot change it),
its name, and --clear-ip-allowlist empties its IP allowlist, the way back in
for an organization whose administrators can no longer reach the API. Running
functions see the change within 30 seconds.`,
  'keys create': `Usage: svc keys create --org ORG_ID --scopes Read,Write,Execute,Admin [--name NAME] [--env test|live] [--json]
                       [--stack NAME [--region R]]

Creates an API key and prints it once, to standard output only: it is stored as a
SHA-256 hash and cannot be shown again. Locally keys are test keys unless
--env live; on a stack they are of the stack's environment, and --env may only repeat it.`,
  'keys list': `Usage: svc keys list --org ORG_ID [--json] [--stack NAME [--region R]]

Lists an organization's keys: id, environment, last four characters, scopes, name.`,
  'keys revoke': `Usage: svc keys revoke --org ORG_ID --key KEY_ID [--json] [--stack NAME [--region R]]

Revokes a key; it stops working at once.`,
  'users create': `Usage: svc users create --org ORG_ID --email EMAIL [--role readonly|train|configure|admin] [--name NAME]
                        [--password-stdin] [--json] [--stack NAME [--region R]]

Creates a web user (role default: admin). Without --password-stdin the user is
invited: a single-use invitation (valid 7 days) is printed once, with the request that
accepts it and sets a password. With --password-stdin the password is read from
standard input (one line) and the user is active at once. The first administrator of a
deployment is made this way (docs/deployment/README.md, "Day one").`,
  'users list': `Usage: svc users list --org ORG_ID [--json] [--stack NAME [--region R]]

Lists an organization's users: id, role, status, email, name.`,
  'webhooks listen': `Usage: svc webhooks listen [--key ADMIN_KEY] [--api URL] [--events all|NAME,…] [--port N] [--print-json]
       svc webhooks listen --secret whsec_… --port N [--print-json]

Receives deliveries on 127.0.0.1:--port (default: a free port), verifies both signatures
and prints one line each; with --key (or $SVC_API_KEY, an Admin key) it registers a
webhook through the running API (--api, default http://127.0.0.1:$PORT or 3000) for
--events (default all), prints its secret, and deletes it on Ctrl-C. With --secret it
only receives for an existing webhook whose URL names --port. The server must run with
SVC_ALLOW_PRIVATE_URLS=true to deliver to this machine. See docs/webhooks.md.`,
} as const;

export type CommandName = keyof typeof COMMAND_HELP;

const GROUPS = ['orgs', 'keys', 'users', 'webhooks'] as const;

function usageLine(command: CommandName): string {
  return (COMMAND_HELP[command].split('\n')[0] ?? '').replace(/^Usage: svc /, '  ');
}

function commandsOf(group: string): CommandName[] {
  return (Object.keys(COMMAND_HELP) as CommandName[]).filter((name) =>
    name.startsWith(`${group} `),
  );
}

export const USAGE = `Usage: svc <command> [options]

${(Object.keys(COMMAND_HELP) as CommandName[]).map(usageLine).join('\n')}

${TARGET_OPTIONS}

  svc <command> --help   more about one command      svc --version   the version

webhooks listen receives signed deliveries on this machine; see svc webhooks listen --help.`;

/** The help for what `words` (the positionals before --help) name, or the overall usage. */
export function helpFor(words: readonly string[]): string {
  const command = words.slice(0, 2).join(' ');
  if (command in COMMAND_HELP) {
    const text = COMMAND_HELP[command as CommandName];
    return command.startsWith('webhooks') ? text : `${text}\n\n${TARGET_OPTIONS}`;
  }
  const group = GROUPS.find((name) => name === words[0]);
  if (group) {
    const options = group === 'webhooks' ? '' : `\n\n${TARGET_OPTIONS}`;
    return `Usage: svc ${group} <command> [options]\n\n${commandsOf(group).map(usageLine).join('\n')}${options}\n\nsvc ${group} <command> --help for more.`;
  }
  return USAGE;
}
