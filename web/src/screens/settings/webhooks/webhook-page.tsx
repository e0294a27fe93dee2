import { useSignal } from '@preact/signals';
import { useLocation } from 'preact-iso/router';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { useLoad } from '../../../api/use-load';
import { ConfirmDialog } from '../../../components/confirm-dialog';
import { Dialog } from '../../../components/dialog';
import { ErrorNotice } from '../../../components/error-notice';
import { formatDateTime } from '../../../format/format';
import { useApp } from '../../../state/app-context';
import { Deliveries } from './deliveries';
import { SecretOnce } from './secret-once';
import { WebhookForm, type WebhookInput } from './webhook-form';
import {
  EVENT_NAMES,
  orderedEvents,
  ownerSentence,
  type TestEventResult,
  testEventSentence,
  unlistedEventMeaning,
  WEBHOOK_STATUS_NAMES,
  type Webhook,
  webhookStatusSentence,
} from './webhooks.state';

const BASE = '/settings/webhooks';
type Open = 'none' | 'edit' | 'rotate' | 'delete';

/** One webhook: what it is, its controls (edit, rotate, test, delete) and its deliveries. */
export function WebhookPage({ id }: { readonly id: string }) {
  const { session } = useApp();
  const location = useLocation();
  const round = useSignal(0);
  const open = useSignal<Open>('none');
  const secret = useSignal<string | null>(null);
  const tested = useSignal<TestEventResult | null>(null);
  const loaded = useLoad(
    (signal) =>
      unwrap(session.api.GET('/api/v1/webhooks/{id}', { params: { path: { id } }, signal })),
    [id, round.value],
  );
  const path = { params: { path: { id } } };
  const save = useAction(async (input: WebhookInput) => {
    const current = loaded.data.value;
    // The URL is sent only when it changed, so saving events alone keeps the owner.
    const body = {
      events: input.events,
      description: input.description,
      ...(current && current.url === input.url && current.owner !== null ? {} : { url: input.url }),
    };
    loaded.data.value = await unwrap(session.api.PUT('/api/v1/webhooks/{id}', { ...path, body }));
    open.value = 'none';
  });
  const rotate = useAction(async () => {
    const rotated = await unwrap(session.api.POST('/api/v1/webhooks/{id}/rotate-secret', path));
    secret.value = rotated.secret;
    const { secret: _shownOnce, ...rest } = rotated;
    loaded.data.value = rest;
  });
  const remove = useAction(async () => {
    await unwrap(session.api.DELETE('/api/v1/webhooks/{id}', path));
    location.route(BASE);
  });
  const test = useAction(async () => {
    tested.value = null;
    tested.value = await unwrap(session.api.POST('/api/v1/webhooks/{id}/test', path));
  });
  const close = () => {
    open.value = 'none';
    secret.value = null;
    save.reset();
    rotate.reset();
    remove.reset();
  };
  const webhook = loaded.data.value;
  const me = session.me.value?.user.id ?? null;
  return (
    <>
      <p class="breadcrumb">
        <a href={BASE}>Webhooks</a>
      </p>
      {loaded.error.value ? <ErrorNotice error={loaded.error.value} /> : null}
      {loaded.loading.value && !webhook ? <p role="status">Loading the webhook…</p> : null}
      {webhook ? (
        <section class="panel" aria-labelledby="webhook-heading">
          <h2 id="webhook-heading" class="webhook-url">
            {webhook.url}
          </h2>
          <WebhookFacts webhook={webhook} me={me} />
          <div class="panel__actions webhook-actions">
            <button
              type="button"
              class="button"
              disabled={test.pending.value}
              onClick={() => void test.run()}
            >
              {test.pending.value ? 'Sending a test event…' : 'Send test event'}
            </button>
            <button type="button" class="button" onClick={() => (open.value = 'edit')}>
              Edit
            </button>
            <button type="button" class="button" onClick={() => (open.value = 'rotate')}>
              Rotate secret
            </button>
            <button
              type="button"
              class="button button--danger"
              onClick={() => (open.value = 'delete')}
            >
              Delete webhook
            </button>
          </div>
          <div role="status" class="webhook-test-result">
            {tested.value ? (
              <p data-delivered={String(tested.value.delivered)}>
                {testEventSentence(tested.value)}
              </p>
            ) : null}
          </div>
          {test.failure.value ? <ErrorNotice error={test.failure.value} /> : null}
        </section>
      ) : null}
      {webhook ? <Deliveries webhookId={id} /> : null}
      {webhook ? (
        <>
          <Dialog open={open.value === 'edit'} onClose={close} labelledBy="edit-webhook-heading">
            <h2 id="edit-webhook-heading">Edit webhook</h2>
            <WebhookForm
              idPrefix="edit-webhook"
              initial={webhook}
              action={save}
              submitLabel="Save changes"
              onCancel={close}
            />
          </Dialog>
          <Dialog open={open.value === 'rotate'} onClose={close} labelledBy="rotate-heading">
            <h2 id="rotate-heading">
              {secret.value ? 'New signing secret' : 'Rotate the secret?'}
            </h2>
            {secret.value ? (
              <SecretOnce secret={secret.value} rotated />
            ) : (
              <p>
                A new signing secret is made and shown once. The current one (ending{' '}
                {webhook.secret_last4}) keeps signing beside it for 24 hours, then stops.
              </p>
            )}
            {rotate.failure.value ? <ErrorNotice error={rotate.failure.value} /> : null}
            <div class="form__actions">
              {secret.value ? (
                <button type="button" class="button button--primary" onClick={close}>
                  Done
                </button>
              ) : (
                <>
                  <button
                    type="button"
                    class="button button--primary"
                    disabled={rotate.pending.value}
                    onClick={() => void rotate.run()}
                  >
                    {rotate.pending.value ? 'Rotating…' : 'Rotate secret'}
                  </button>
                  <button type="button" class="button" onClick={close}>
                    Cancel
                  </button>
                </>
              )}
            </div>
          </Dialog>
          <ConfirmDialog
            open={open.value === 'delete'}
            onClose={close}
            question="Delete this webhook?"
            confirm="Delete webhook"
            working="Deleting…"
            action={remove}
          >
            <p>
              Nothing more is sent to <span class="webhook-url">{webhook.url}</span>; deliveries
              waiting for a retry are cancelled. This cannot be undone.
            </p>
          </ConfirmDialog>
        </>
      ) : null}
    </>
  );
}

function WebhookFacts({ webhook, me }: { readonly webhook: Webhook; readonly me: string | null }) {
  return (
    <dl class="facts">
      <dt>Status</dt>
      <dd>
        <span class="webhook-status" data-status={webhook.status}>
          {WEBHOOK_STATUS_NAMES[webhook.status]}
        </span>{' '}
        {webhookStatusSentence(webhook.status)}
      </dd>
      <dt>Events</dt>
      <dd>
        <ul class="event-list">
          {orderedEvents(webhook.events).map((name) => (
            <li key={name}>
              <code>{name}</code>
              {EVENT_NAMES.includes(name) ? null : (
                <span class="event-choice__meaning"> ({unlistedEventMeaning(name)})</span>
              )}
            </li>
          ))}
        </ul>
      </dd>
      {webhook.description ? (
        <>
          <dt>Description</dt>
          <dd>{webhook.description}</dd>
        </>
      ) : null}
      <dt>Owner</dt>
      <dd>{ownerSentence(webhook.owner, me)}</dd>
      <dt>Signing secret</dt>
      <dd>ends in {webhook.secret_last4}</dd>
      <dt>Created</dt>
      <dd>{formatDateTime(webhook.created_at)}</dd>
      <dt>Identifier</dt>
      <dd>
        <code>{webhook.id}</code>
      </dd>
    </dl>
  );
}
