import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { useLoad } from '../../../api/use-load';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { formatDateTime, formatNumber } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import '../../../components/filters.css';
import { Pager } from '../../../components/pager';
import { TableScroll } from '../../../components/table-scroll';
import {
  attemptOutcome,
  canRetry,
  DELIVERY_FILTERS,
  type Delivery,
  deliveryFilterFor,
  deliveryStatusLabel,
  nextAttemptIn,
  RETRY_FOLLOW_MS,
  RETRY_POLL_MS,
  readablePayload,
  refreshDelay,
  retryOutcomeSentence,
  retrySettled,
} from './webhooks.state';

const PAGE_SIZE = 20;

function pageOf(query: Record<string, string>): number {
  const page = Number(query.page);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/**
 * A webhook's deliveries, newest first, filtered by status (in the address:
 * `?status=failed|waiting|succeeded|cancelled`), each with its attempts,
 * answers and next attempt; "Retry" sends one that has not succeeded now
 * and the list follows it until its attempt is recorded.
 */
export function Deliveries({ webhookId }: { readonly webhookId: string }) {
  const { session } = useApp();
  const location = useLocation();
  const filter = deliveryFilterFor(location.query.status);
  const page = pageOf(location.query);
  const round = useSignal(0);
  /** The delivery a retry by hand is following, and what it came to. */
  const awaiting = useSignal<string | null>(null);
  const outcome = useSignal<string | null>(null);
  const shown = useSignal<string | null>(null);
  const deliveries = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/webhooks/{id}/deliveries', {
          params: {
            path: { id: webhookId },
            query: {
              limit: String(PAGE_SIZE),
              offset: String((page - 1) * PAGE_SIZE),
              ...(filter.status ? { status: filter.status } : {}),
            },
          },
          signal,
        }),
      ),
    [webhookId, filter.value, page, round.value],
  );
  const list = deliveries.data.value;
  const retry = useAction(async (delivery: Delivery) => {
    const path = { params: { path: { id: webhookId, delivery_id: delivery.id } } };
    outcome.value = null;
    awaiting.value = delivery.id;
    try {
      const reopened = await unwrap(
        session.api.POST('/api/v1/webhooks/{id}/deliveries/{delivery_id}/retry', path),
      );
      round.value += 1;
      // Followed on its own, not through the list, so a filter it leaves cannot hide its outcome.
      const retriedAt = reopened.retried_at ?? new Date().toISOString();
      for (let waited = 0; waited < RETRY_FOLLOW_MS; waited += RETRY_POLL_MS) {
        await new Promise((resolve) => setTimeout(resolve, RETRY_POLL_MS));
        const now = await unwrap(
          session.api.GET('/api/v1/webhooks/{id}/deliveries/{delivery_id}', path),
        );
        if (retrySettled(now, retriedAt)) {
          outcome.value = retryOutcomeSentence(now);
          return;
        }
      }
      outcome.value =
        'Retried: the attempt has not been recorded yet; the list shows it when it is.';
    } finally {
      awaiting.value = null;
      round.value += 1;
    }
  });
  useEffect(() => {
    if (!list) return undefined;
    const delay = refreshDelay(list.deliveries, Date.now());
    if (delay === null) return undefined;
    const timer = setTimeout(() => {
      round.value += 1;
    }, delay);
    return () => clearTimeout(timer);
  }, [list]);

  const here = `/settings/webhooks/${webhookId}`;
  const address = (status: string, nextPage: number) => {
    const query = new URLSearchParams();
    if (status) query.set('status', status);
    if (nextPage > 1) query.set('page', String(nextPage));
    const text = query.toString();
    return text ? `${here}?${text}` : here;
  };
  const pages = list ? Math.max(1, Math.ceil(list.total / PAGE_SIZE)) : 1;
  const now = Date.now();
  return (
    <section class="panel" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <div class="filters">
        <div class="filters__field">
          <label for="delivery-status">Status</label>
          <select
            id="delivery-status"
            value={filter.value}
            onChange={(event) => location.route(address(event.currentTarget.value, 1))}
          >
            {DELIVERY_FILTERS.map((option) => (
              <option key={option.value} value={option.value}>
                {option.label}
              </option>
            ))}
          </select>
        </div>
      </div>
      {deliveries.error.value ? <ErrorNotice error={deliveries.error.value} /> : null}
      {retry.failure.value ? <ErrorNotice error={retry.failure.value} /> : null}
      <p role="status" class="deliveries__progress">
        {awaiting.value ? 'Retrying: waiting for the receiver’s answer…' : (outcome.value ?? '')}
      </p>
      {deliveries.loading.value && !list ? <p role="status">Loading deliveries…</p> : null}
      {list && list.total === 0 ? (
        <p>
          {filter.status
            ? `No deliveries here with the status “${filter.label}”.`
            : 'No deliveries yet. Events this webhook subscribes to appear here as they are sent.'}
        </p>
      ) : null}
      {list && list.deliveries.length > 0 ? (
        <TableScroll label="Deliveries">
          <table class="table deliveries">
            <caption>
              {formatNumber(list.total)} {list.total === 1 ? 'delivery' : 'deliveries'}
              {filter.status ? ` (${filter.label.toLowerCase()})` : ''}
            </caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Attempts</th>
                <th scope="col">Last answer</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span class="webhooks-hidden-label">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.deliveries.map((delivery) => {
                const last = delivery.attempts.at(-1);
                const next = nextAttemptIn(delivery, now);
                const retrying = awaiting.value === delivery.id;
                return (
                  <tr key={delivery.id}>
                    <th scope="row">
                      <code>{delivery.event_type}</code>
                      <span class="delivery-time">{formatDateTime(delivery.created_at)}</span>
                    </th>
                    <td>
                      <span class="delivery-status" data-status={delivery.status}>
                        {deliveryStatusLabel(delivery)}
                      </span>
                      {delivery.failure_reason ? (
                        <span class="delivery-reason">{delivery.failure_reason}</span>
                      ) : null}
                    </td>
                    <td>{formatNumber(delivery.attempts.length)}</td>
                    <td>{last ? attemptOutcome(last) : 'None yet'}</td>
                    <td>
                      {next && delivery.next_attempt_at ? (
                        <time
                          dateTime={delivery.next_attempt_at}
                          title={formatDateTime(delivery.next_attempt_at)}
                        >
                          {next}
                        </time>
                      ) : (
                        '—'
                      )}
                    </td>
                    <td class="delivery-actions">
                      <button
                        type="button"
                        class="button button--small"
                        aria-label={`Details of ${delivery.event_type} delivery ${delivery.id}`}
                        onClick={() => {
                          shown.value = delivery.id;
                        }}
                      >
                        Details
                      </button>
                      {canRetry(delivery) ? (
                        <button
                          type="button"
                          class="button button--small"
                          aria-label={`Retry ${delivery.event_type} delivery ${delivery.id}`}
                          disabled={retry.pending.value || retrying}
                          onClick={() => void retry.run(delivery)}
                        >
                          {retrying ? 'Retrying…' : 'Retry'}
                        </button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableScroll>
      ) : null}
      <Pager
        label="Pages of deliveries"
        page={page}
        pages={pages}
        hrefOf={(n) => address(filter.value, n)}
      />
      <Dialog
        open={shown.value !== null}
        onClose={() => {
          shown.value = null;
        }}
        labelledBy="delivery-heading"
        class="delivery-dialog"
      >
        {shown.value ? (
          <DeliveryDetails
            webhookId={webhookId}
            deliveryId={shown.value}
            version={round.value}
            onClose={() => {
              shown.value = null;
            }}
          />
        ) : null}
      </Dialog>
    </section>
  );
}

/** One delivery: every attempt with its answer, and the payload exactly as sent. */
function DeliveryDetails({
  webhookId,
  deliveryId,
  version,
  onClose,
}: {
  readonly webhookId: string;
  readonly deliveryId: string;
  readonly version: number;
  readonly onClose: () => void;
}) {
  const { session } = useApp();
  const loaded = useLoad(
    (signal) =>
      unwrap(
        session.api.GET('/api/v1/webhooks/{id}/deliveries/{delivery_id}', {
          params: { path: { id: webhookId, delivery_id: deliveryId } },
          signal,
        }),
      ),
    [webhookId, deliveryId, version],
  );
  const delivery = loaded.data.value;
  return (
    <>
      <div class="dialog__header">
        <h2 id="delivery-heading">
          {delivery ? `Delivery of ${delivery.event_type}` : 'Delivery'}
        </h2>
        <button type="button" class="button button--small" onClick={onClose}>
          Close
        </button>
      </div>
      {loaded.error.value ? <ErrorNotice error={loaded.error.value} /> : null}
      {loaded.loading.value && !delivery ? <p role="status">Loading the delivery…</p> : null}
      {delivery ? (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              {deliveryStatusLabel(delivery)}
              {delivery.failure_reason ? ` (${delivery.failure_reason})` : ''}
            </dd>
            <dt>Event</dt>
            <dd>
              <code>{delivery.event_id}</code>
            </dd>
            <dt>Delivery</dt>
            <dd>
              <code>{delivery.id}</code>
            </dd>
            <dt>Next attempt</dt>
            <dd>
              {delivery.status === 'pending' && delivery.next_attempt_at
                ? formatDateTime(delivery.next_attempt_at)
                : 'None'}
            </dd>
            {delivery.retried_at ? (
              <>
                <dt>Retried by hand</dt>
                <dd>{formatDateTime(delivery.retried_at)}</dd>
              </>
            ) : null}
          </dl>
          <h3>Attempts</h3>
          {delivery.attempts.length === 0 ? (
            <p>None yet.</p>
          ) : (
            <TableScroll label="Attempts">
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Attempt</th>
                    <th scope="col">When</th>
                    <th scope="col">Answer</th>
                    <th scope="col">Took</th>
                  </tr>
                </thead>
                <tbody>
                  {delivery.attempts.map((attempt, index) => (
                    <tr key={`${attempt.at}-${index}`}>
                      <td>{attempt.attempt}</td>
                      <td>{formatDateTime(attempt.at)}</td>
                      <td>{attemptOutcome(attempt)}</td>
                      <td>{formatNumber(attempt.duration_ms)} ms</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </TableScroll>
          )}
          <h3 id="payload-heading">Payload</h3>
          <pre class="payload">{readablePayload(delivery.payload)}</pre>
        </>
      ) : null}
    </>
  );
}
