import { useSignal } from '@preact/signals';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { CopyButton } from '../../../components/copy-button';
import { ErrorNotice } from '../../../components/error-notice';
import { formatDateTime } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { explainSsoFailure, type SsoDomain } from './sso-setup';

const STATUS_WORDS: Readonly<Record<SsoDomain['status'], string>> = {
  verified: 'Verified',
  pending: 'Not verified yet',
  unverified: 'No longer verified',
};

/**
 * Step 1: the domains whose people SSO signs in. Adding one
 * gives the TXT record to publish; "Verify" looks it up.
 */
export function Domains({
  orgId,
  domains,
  enforced,
  changed,
}: {
  readonly orgId: string;
  readonly domains: readonly SsoDomain[];
  readonly enforced: boolean;
  readonly changed: () => void;
}) {
  const { session } = useApp();
  const add = useAction(async (form: HTMLFormElement) => {
    const domain = String(new FormData(form).get('domain') ?? '').trim();
    await unwrap(
      session.api.POST('/api/v1/organizations/{id}/sso/domains', {
        params: { path: { id: orgId } },
        body: { domain },
      }),
    );
    form.reset();
    changed();
  });
  return (
    <section class="panel sso-step" aria-labelledby="sso-domains-heading">
      <h2 id="sso-domains-heading">1. Verify your domain</h2>
      <p>
        SSO signs in people whose email address is at a domain your organization has proved it
        holds. Add the domain, publish the TXT record it is given at your DNS provider, then verify
        it.
      </p>
      {domains.length > 0 ? (
        <ul class="sso-domains">
          {domains.map((domain) => (
            <DomainItem
              key={domain.domain}
              orgId={orgId}
              domain={domain}
              enforced={enforced}
              changed={changed}
            />
          ))}
        </ul>
      ) : null}
      <form
        class="form sso-domain-form"
        onSubmit={(event) => {
          event.preventDefault();
          void add.run(event.currentTarget);
        }}
      >
        <label for="sso-domain">Domain</label>
        <p class="form__hint" id="sso-domain-hint">
          The part after @ in your people’s email addresses, such as example.com.
        </p>
        <div class="sso-inline">
          <input
            id="sso-domain"
            name="domain"
            required
            maxLength={253}
            autoComplete="off"
            aria-describedby="sso-domain-hint"
          />
          <button type="submit" class="button" disabled={add.pending.value}>
            Add domain
          </button>
        </div>
      </form>
      {add.failure.value ? <ErrorNotice error={explainSsoFailure(add.failure.value)} /> : null}
    </section>
  );
}

function DomainItem({
  orgId,
  domain,
  enforced,
  changed,
}: {
  readonly orgId: string;
  readonly domain: SsoDomain;
  readonly enforced: boolean;
  readonly changed: () => void;
}) {
  const { session } = useApp();
  const confirming = useSignal(false);
  const path = { id: orgId, domain: domain.domain };
  const verify = useAction(async () => {
    await unwrap(
      session.api.POST('/api/v1/organizations/{id}/sso/domains/{domain}/verify', {
        params: { path },
      }),
    );
    changed();
  });
  const remove = useAction(async () => {
    await unwrap(
      session.api.DELETE('/api/v1/organizations/{id}/sso/domains/{domain}', { params: { path } }),
    );
    confirming.value = false;
    changed();
  });
  const headingId = `sso-domain-${domain.domain.replace(/[^a-z0-9]/g, '-')}`;
  const verified = domain.status === 'verified';
  return (
    <li>
      <section class="sso-domain" aria-labelledby={headingId}>
        <h3 id={headingId}>{domain.domain}</h3>
        <p class="sso-status" data-status={domain.status}>
          {STATUS_WORDS[domain.status]}
          {verified && domain.verified_at ? ` on ${formatDateTime(domain.verified_at)}` : ''}
        </p>
        {domain.status === 'unverified' ? (
          <p>
            The daily check no longer finds its TXT record: people already in the organization still
            sign in, but nobody new is admitted until it is verified again.
          </p>
        ) : null}
        {verified ? null : (
          <>
            <p>Publish this TXT record at your DNS provider:</p>
            <dl class="facts sso-values">
              <dt>Name</dt>
              <dd>
                <code>{domain.txt_record.name}</code>{' '}
                <CopyButton value={domain.txt_record.name} label="Copy record name" />
              </dd>
              <dt>Type</dt>
              <dd>TXT</dd>
              <dt>Value</dt>
              <dd>
                <code>{domain.txt_record.value}</code>{' '}
                <CopyButton value={domain.txt_record.value} label="Copy record value" />
              </dd>
            </dl>
            {domain.last_error && domain.checked_at ? (
              <p class="form__hint">
                Last check, {formatDateTime(domain.checked_at)}: {domain.last_error}.
              </p>
            ) : null}
            {enforced ? (
              <p class="form__hint">
                SSO is enforced: once verified, password sessions of people at {domain.domain} end,
                in every organization.
              </p>
            ) : null}
          </>
        )}
        <div class="form__actions">
          {verified ? null : (
            <button
              type="button"
              class="button button--primary"
              disabled={verify.pending.value}
              onClick={() => void verify.run()}
            >
              {verify.pending.value ? 'Verifying…' : 'Verify'}
            </button>
          )}
          <button
            type="button"
            class="button"
            onClick={() => {
              remove.reset();
              confirming.value = true;
            }}
          >
            Remove
          </button>
        </div>
        {verify.failure.value ? (
          <ErrorNotice error={explainSsoFailure(verify.failure.value)} />
        ) : null}
      </section>
      <ConfirmDialog
        open={confirming.value}
        onClose={() => {
          confirming.value = false;
        }}
        question={`Remove ${domain.domain}?`}
        confirm="Remove domain"
        action={remove}
      >
        <p>
          Its verification goes with it: people at {domain.domain} can no longer sign in through SSO
          (they are told “Unauthorized domain”), and another organization may verify it. Adding it
          again needs a new TXT record. Sessions already open carry on.
        </p>
      </ConfirmDialog>
    </li>
  );
}
