import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { useLoad } from '../../../api/use-load';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { Pager } from '../../../components/pager';
import { TableScroll } from '../../../components/table-scroll';
import { formatDateTime, formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { SecretOnce } from './secret-once';
import { WebhookForm, type WebhookInput } from './webhook-form';
import { WEBHOOK_STATUS_NAMES, type WebhookWithSecret } from './webhooks.state';

const PAGE_SIZE = 20;
const BASE = '/settings/webhooks';

function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The organization's webhooks, newest first, and "New webhook". */
export function WebhookList() {
  const { session } = useApp();
  const location = useLocation();
  const page = pageOf(location.query);
  const round = useSignal(0);
  const creating = useSignal(false);
  const created = useSignal<WebhookWithSecret | null>(null);
  const webhooks = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/webhooks', {
          params: { query: { limit: String(PAGE_SIZE), offset: String((page - 1) * PAGE_SIZE) } },
          signal,
        }),
      ),
    [page, round.value],
  );
  const create = useAction(async (input: WebhookInput) => {
    created.value = await unwrap(session.api.POST('/api/v1/webhooks', { body: input }));
    round.value += 1;
  });
  const close = () => {
    creating.value = false;
    created.value = null;
    create.reset();
  };
  const list = webhooks.data.value;
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  return (
    <section class="panel" aria-labelledby="webhooks-heading">
      <div class="panel__title">
        <h2 id="webhooks-heading">Webhooks</h2>
        <button
          type="button"
          class="button button--primary"
          onClick={() => {
            creating.value = true;
          }}
        >
          New webhook
        </button>
      </div>
      <p>
        A webhook sends the events it subscribes to, signed, to an address of yours. Failed
        deliveries are tried again after 5 s, 30 s, 5 min and 1 h, and can be retried by hand.
      </p>
      {webhooks.error.value ? <ErrorNotice error={webhooks.error.value} /> : null}
      {webhooks.loading.value && !list ? <p role="status">Loading webhooks…</p> : null}
      {list && list.total === 0 ? (
        <p>No webhooks yet. "New webhook" above sends the events you choose to an address.</p>
      ) : null}
      {list && list.webhooks.length > 0 ? (
        <TableScroll label="Webhooks">
          <table class="table">
            <caption>
              {formatNumber(list.total)} {list.total === 1 ? 'webhook' : 'webhooks'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Secret</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.webhooks.map((webhook) => (
                <tr key={webhook.id}>
                  <th scope="row">
                    <a href={`${BASE}/${webhook.id}`} class="webhook-url">
                      {webhook.url}
                    </a>
                    {webhook.description ? (
                      <span class="webhook-description">{webhook.description}</span>
                    ) : null}
                  </th>
                  <td>
                    {webhook.events.length === 1
                      ? webhook.events[0]
                      : `${formatNumber(webhook.events.length)} events`}
                  </td>
                  <td>
                    <span class="webhook-status" data-status={webhook.status}>
                      {WEBHOOK_STATUS_NAMES[webhook.status]}
                    </span>
                  </td>
                  <td>
                    <span class="webhooks-hidden-label">ending </span>…{webhook.secret_last4}
                  </td>
                  <td>{formatDateTime(webhook.created_at)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager
        label="Pages of webhooks"
        page={page}
        pages={pages}
        hrefOf={(n) => `${BASE}?page=${n}`}
      />
      <Dialog open={creating.value} onClose={close} labelledBy="new-webhook-heading">
        {created.value ? (
          <>
            <h2 id="new-webhook-heading">Webhook created</h2>
            <p>
              <a href={`${BASE}/${created.value.id}`} onClick={close}>
                {created.value.url}
              </a>{' '}
              now receives {created.value.events.join(', ')}.
            </p>
            <SecretOnce secret={created.value.secret} rotated={false} />
            <div class="form__actions">
              <button type="button" class="button button--primary" onClick={close}>
                Done
              </button>
            </div>
          </>
        ) : (
          <>
            <h2 id="new-webhook-heading">New webhook</h2>
            <WebhookForm
              idPrefix="new-webhook"
              initial={null}
              action={create}
              submitLabel="Create webhook"
              onCancel={close}
            />
          </>
        )}
      </Dialog>
    </section>
  );
}
