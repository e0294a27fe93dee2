/**
 * `npm start`: the whole service on one machine. Settings come from
 * the environment (lib/local/local-config.ts); none are needed.
 */
import type { BootstrapKeyReason } from '../lib/local/bootstrap';
import type { ConsoleBuild } from '../lib/local/console-build';
import type { LocalRuntime } from '../lib/local/runtime';

async function main(): Promise<void> {
  // Set before any handler module builds its logger or SDK client.
  process.env.POWERTOOLS_LOG_LEVEL ??= process.env.LOG_LEVEL ?? 'WARN';
  // Metrics are CloudWatch EMF lines in the cloud; on one machine they would only flood the console.
  process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  // Nothing is traced on one machine, and the X-Ray SDK's automatic mode hooks every promise
  // of the process (cls-hooked's async hook, installed when the SDK loads): 5-8 % of a sync's CPU.
  process.env.AWS_XRAY_MANUAL_MODE ??= 'true';
  const { parseLocalConfig } = await import('../lib/local/local-config');
  const { startLocalRuntime } = await import('../lib/local/runtime');
  const { ensureConsoleBuilt } = await import('../lib/local/console-build');

  const config = parseLocalConfig(process.env);
  // The web console at `/`, built first when missing or stale.
  const consoleBuild = ensureConsoleBuilt();
  const runtime: LocalRuntime = await startLocalRuntime(config, {
    ...(consoleBuild.built ? { consoleDirectory: consoleBuild.directory } : {}),
    onRequest: (line) =>
      console.log(
        `${line.method} ${line.path} → ${line.status} (${line.ms} ms) ${line.requestId ?? ''}${line.clientClosed ? ' (client closed the stream)' : ''}`,
      ),
    // The bootstrap key counts as shown once this has printed it (lib/local/bootstrap.ts).
    announce: (started) =>
      printBanner(started, config.SVC_IN_MEMORY ? '(in memory)' : config.dataDir, consoleBuild),
    // Without SVC_SMTP_URL no mail is sent; its link is printed instead.
    onUnsentMail: (about) => {
      const what = about.kind === 'invitation' ? 'Invitation' : 'Password reset';
      console.log(
        `\n${what} for user ${about.userId} (${about.orgId}), not mailed (SVC_SMTP_URL is unset), valid until ${about.expiresAt}:`,
      );
      console.log(`  open ${about.link}\n`);
    },
  });
  if (config.SVC_ALLOW_PRIVATE_URLS) {
    console.log(
      'SVC_ALLOW_PRIVATE_URLS=true: webhooks may target loopback and private addresses (never in the cloud).',
    );
  }

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      console.log('Forced exit.');
      process.exit(1);
    }
    stopping = true;
    console.log(`\n${signal}: stopping (data is kept)…`);
    runtime.end().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

const KEY_HEADLINES: Record<BootstrapKeyReason, string> = {
  'first-start':
    '\nFirst start: created the organization and an Admin API key. The key is shown only this once:',
  'replaced-unshown':
    '\nAn earlier start created the Admin API key but stopped before showing it; that key is revoked.\nA new Admin API key, shown only this once:',
  preset: '\nRegistered SVC_BOOTSTRAP_KEY as an Admin API key:',
  none: '',
};

function printBanner(runtime: LocalRuntime, dataDir: string, consoleBuild: ConsoleBuild): void {
  const { organization, newKey, reason } = runtime.bootstrap;
  console.log(`Agent Query Service listening on ${runtime.url}`);
  console.log(
    consoleBuild.built
      ? `  console: ${runtime.url}/ (open it in a browser)`
      : `  console: not served (${consoleBuild.reason})`,
  );
  console.log(
    `  environment: test   data: ${dataDir}   DynamoDB (dynalite): ${runtime.dynamoDbEndpoint}`,
  );
  console.log(
    `  organization: ${organization.id} (${organization.name}, plan ${organization.plan})`,
  );
  if (newKey) {
    console.log(KEY_HEADLINES[reason]);
    console.log(`\n  ${newKey}\n`);
    console.log('Try it:');
    console.log(`  curl -s ${runtime.url}/api/v1/agents -H "Authorization: Bearer ${newKey}"\n`);
  } else {
    console.log(
      '  (existing data: the bootstrap key was shown on first start; `npx svc keys create` makes more)',
    );
  }
  const { admin } = runtime.bootstrap;
  if (admin) {
    console.log(
      `  web administrator: ${admin.email} (${admin.created ? 'created now with SVC_BOOTSTRAP_ADMIN_PASSWORD' : 'exists; its password is left as it is'})`,
    );
    console.log(
      '  Sign in (the cookie jar keeps the session; send the csrf_token back as X-CSRF-Token):',
    );
    console.log(
      `  curl -s -c cookies.txt -X POST ${runtime.url}/api/v1/auth/login -H 'Content-Type: application/json' -d '{"email":"${admin.email}","password":"…"}'`,
    );
  }
  if (!runtime.bootstrap.hasUsers && consoleBuild.built) {
    console.log(
      `  Nobody can sign in yet: open ${runtime.url}/ in a browser on this machine to create the administrator.`,
    );
  }
  console.log('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
