import { EVENT_ALIASES, EVENT_TYPES } from '../../../layers/core/domain/events';
import {
  attemptOutcome,
  canRetry,
  DELIVERY_FILTERS,
  type Delivery,
  deliveryFilterFor,
  deliveryStatusLabel,
  EVENT_GROUPS,
  EVENT_NAMES,
  LEGACY_EVENT_NAMES,
  nextAttemptIn,
  orderedEvents,
  readablePayload,
  refreshDelay,
  retryOutcomeSentence,
  retrySettled,
  testEventSentence,
  unlistedEventMeaning,
} from '../../src/screens/settings/webhooks/webhooks.state';

const NOW = Date.parse('2026-11-27T12:00:00.000Z');

function delivery(changes: Partial<Delivery> = {}): Delivery {
  return {
    id: 'dlv_1',
    webhook_id: 'wh_1',
    event_id: 'evt_1',
    event_type: 'agent.created',
    status: 'pending',
    attempts: [],
    created_at: '2026-11-27T11:59:00.000Z',
    updated_at: '2026-11-27T11:59:00.000Z',
    next_attempt_at: null,
    failure_reason: null,
    retried_at: null,
    ...changes,
  };
}

const attempt = (at: string, status_code: number | null, error: string | null = null) => ({
  attempt: 1,
  at,
  status_code,
  duration_ms: 12,
  error,
});

describe('the event checkboxes', () => {
  it('offer each event of the catalog once, under its documented name', () => {
    expect([...EVENT_NAMES].sort()).toEqual([...EVENT_TYPES].sort());
    expect(new Set(EVENT_NAMES).size).toBe(EVENT_NAMES.length);
    for (const alias of Object.keys(EVENT_ALIASES)) expect(EVENT_NAMES).not.toContain(alias);
  });

  it('explain an older name a webhook is still subscribed to by the event it stands for', () => {
    expect(LEGACY_EVENT_NAMES).toEqual(EVENT_ALIASES);
    expect(unlistedEventMeaning('data_source.synced')).toBe(
      'an older name of datasource.processed, still delivered under this name',
    );
    expect(unlistedEventMeaning('legacy.thing')).toBe('a name no longer offered');
  });

  it('group them by what they are about, with who receives the restricted ones (P217)', () => {
    expect(EVENT_GROUPS.map((group) => group.label)).toEqual([
      'Interactions',
      'Agents',
      'Data sources',
      'Users',
      'Evaluations',
    ]);
    const group = (label: string) => EVENT_GROUPS.find((entry) => entry.label === label);
    expect(group('Data sources')?.events.map((event) => event.name)).toEqual([
      'datasource.created',
      'datasource.processed',
      'datasource.failed',
    ]);
    expect(group('Users')?.hint).toMatch(/administrator or an API key/);
    expect(group('Data sources')?.hint).toBeNull();
  });

  it('list a subscription in the form order, unknown names last', () => {
    expect(orderedEvents(['user.created', 'legacy.thing', 'agent.created'])).toEqual([
      'agent.created',
      'user.created',
      'legacy.thing',
    ]);
  });
});

describe('delivery statuses', () => {
  it('map the filter in the address to the API status', () => {
    expect(deliveryFilterFor('failed').status).toBe('failed');
    expect(deliveryFilterFor('waiting').status).toBe('pending');
    expect(deliveryFilterFor('succeeded').status).toBe('delivered');
    expect(deliveryFilterFor('nonsense')).toBe(DELIVERY_FILTERS[0]);
    expect(deliveryFilterFor(undefined).status).toBeUndefined();
  });

  it('name a pending delivery by whether it was tried yet', () => {
    expect(deliveryStatusLabel(delivery())).toBe('Sending');
    expect(
      deliveryStatusLabel(delivery({ attempts: [attempt('2026-11-27T11:59:01Z', 500)] })),
    ).toBe('Waiting for a retry');
    expect(deliveryStatusLabel(delivery({ status: 'delivered' }))).toBe('Succeeded');
    expect(deliveryStatusLabel(delivery({ status: 'failed' }))).toBe('Failed');
  });

  it('offer Retry on what has not succeeded, except a first attempt on its way (P286)', () => {
    const tried = [attempt('2026-11-27T11:59:01Z', 500)];
    expect(canRetry(delivery({ status: 'failed', attempts: tried }))).toBe(true);
    expect(canRetry(delivery({ status: 'cancelled' }))).toBe(true);
    expect(canRetry(delivery({ attempts: tried }))).toBe(true);
    expect(canRetry(delivery())).toBe(false);
    expect(canRetry(delivery({ status: 'delivered', attempts: tried }))).toBe(false);
  });

  it('say what an attempt got back and when the next is due', () => {
    expect(attemptOutcome({ status_code: 500, error: null })).toBe('HTTP 500');
    expect(attemptOutcome({ status_code: null, error: 'timed out after 10 s' })).toBe(
      'No answer: timed out after 10 s',
    );
    const due = delivery({ next_attempt_at: '2026-11-27T12:00:25.000Z' });
    expect(nextAttemptIn(due, NOW)).toBe('in 25 s');
    expect(nextAttemptIn(due, NOW + 30_000)).toBe('now');
    expect(nextAttemptIn({ ...due, status: 'failed' }, NOW)).toBeNull();
  });
});

describe('following deliveries', () => {
  it('reads the list again every 5 s only while an attempt is due within the minute', () => {
    const soon = delivery({ next_attempt_at: '2026-11-27T12:00:30.000Z' });
    const later = delivery({ next_attempt_at: '2026-11-27T13:00:00.000Z' });
    expect(refreshDelay([soon], NOW)).toBe(5_000);
    expect(refreshDelay([later], NOW)).toBeNull();
    expect(refreshDelay([{ ...soon, status: 'failed' }], NOW)).toBeNull();
  });

  it('knows a retry by hand settled once an attempt is dated at or after it, or it ended', () => {
    const retriedAt = '2026-11-27T12:00:00.000Z';
    const before = delivery({
      attempts: [attempt('2026-11-27T11:59:01.000Z', 500)],
      retried_at: retriedAt,
    });
    expect(retrySettled(before, retriedAt)).toBe(false);
    const after = {
      ...before,
      attempts: [...before.attempts, attempt('2026-11-27T12:00:00.200Z', 500)],
    };
    expect(retrySettled(after, retriedAt)).toBe(true);
    expect(retrySettled({ ...before, status: 'cancelled' }, retriedAt)).toBe(true);
  });

  it('says what the retry came to', () => {
    const ok = delivery({ status: 'delivered', attempts: [attempt('2026-11-27T12:00:00Z', 200)] });
    expect(retryOutcomeSentence(ok)).toBe('Retried agent.created: succeeded (HTTP 200).');
    const again = delivery({ attempts: [attempt('2026-11-27T12:00:00Z', 503)] });
    expect(retryOutcomeSentence(again)).toMatch(
      /failed again \(HTTP 503\); it will be tried again/,
    );
    expect(
      retryOutcomeSentence(delivery({ status: 'cancelled', failure_reason: 'webhook disabled' })),
    ).toBe('Retried agent.created: not sent, webhook disabled.');
  });
});

describe('a test event and a payload, in words', () => {
  it('explains a test event that was not delivered', () => {
    const base = { event_id: 'evt_9', duration_ms: 40, error: null };
    expect(testEventSentence({ ...base, delivered: true, status_code: 204 })).toBe(
      'Delivered: the receiver answered HTTP 204 in 40 ms.',
    );
    expect(testEventSentence({ ...base, delivered: false, status_code: 500 })).toMatch(
      /^Not delivered: the receiver answered HTTP 500 .*only a 2xx answer counts.*evt_9/,
    );
    expect(
      testEventSentence({
        ...base,
        delivered: false,
        status_code: null,
        error: 'connection refused',
      }),
    ).toMatch(/^Not delivered: connection refused\. Check that the address is right/);
  });

  it('shows a JSON payload indented, anything else as sent', () => {
    expect(readablePayload('{"a":1}')).toBe('{\n  "a": 1\n}');
    expect(readablePayload('not json')).toBe('not json');
  });
});
