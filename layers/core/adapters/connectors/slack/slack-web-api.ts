import { ConnectionLostError, ProviderUnavailableError } from '../../../domain/connector';
import type { AccessGrant } from '../../../ports/connector.port';
import type { ProviderApi } from '../provider-api';
import { SLACK_GRANT_ERRORS, type SlackEndpoints, slackApiUrl } from './slack-oauth';

/** A Web API method's answer: its body when `ok`, else Slack's error name. */
export type SlackAnswer =
  | { readonly ok: true; readonly body: Record<string, unknown> }
  | { readonly ok: false; readonly error: string };

/**
 * Slack's Web API over the provider client (P152 waits out 429 +
 * `Retry-After`). Slack answers errors with HTTP 200 and `ok:false`, so the
 * grant's errors are read here: `token_expired` renews the token once and
 * retries; revoked, uninstalled or under-scoped grants are a
 * `ConnectionLostError`. Other errors go back to the caller.
 */
export class SlackWebApi {
  constructor(
    private readonly api: ProviderApi,
    private readonly grant: AccessGrant,
    private readonly endpoints: SlackEndpoints,
  ) {}

  async call(
    method: string,
    params: Record<string, string>,
    options: { readonly post?: boolean } = {},
  ): Promise<SlackAnswer> {
    let refreshed = false;
    for (;;) {
      const url = new URL(slackApiUrl(this.endpoints, method));
      if (!options.post)
        for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      const answer = await this.api.getJson(
        url.toString(),
        options.post ? { method: 'POST', body: JSON.stringify(params) } : {},
      );
      if (answer.status === 404)
        throw new ProviderUnavailableError(`Slack has no method ${method}`);
      const body = (answer.body ?? {}) as Record<string, unknown>;
      if (body.ok === true) return { ok: true, body };
      const error = typeof body.error === 'string' ? body.error : 'unknown_error';
      if (error === 'token_expired' && !refreshed) {
        refreshed = true;
        await this.grant.refresh();
        continue;
      }
      if (SLACK_GRANT_ERRORS.has(error) || error === 'token_expired') {
        const needed = typeof body.needed === 'string' ? ` (needs ${body.needed})` : '';
        throw new ConnectionLostError(
          `Slack refused the grant at ${method}: ${error}${needed}; access was revoked or changed, reconnect the data source`,
        );
      }
      if (error === 'ratelimited' || error === 'internal_error' || error === 'fatal_error') {
        throw new ProviderUnavailableError(
          `Slack's ${method} answered ${error}; the sync is retried later`,
        );
      }
      return { ok: false, error };
    }
  }
}
