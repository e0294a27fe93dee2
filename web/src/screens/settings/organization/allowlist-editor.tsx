import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import { ApiError } from '../../../api/api-error';
import { unwrap } from '../../../api/client';
import { useAction } from '../../../api/use-action';
import { ErrorNotice } from '../../../components/error-notice';
import { useApp } from '../../../state/app-context';
import { problemsByRow, type RangeRow, rangeRow, rangesToSend, rowProblem } from './allowlist-rows';
import { rangeContains, rangeForAddress, wouldShutOut } from './cidr';
import type { OrganizationView } from './types';

/** The service's bounds (ORGANIZATION_LIMITS): ranges in a list, characters in one. */
const RANGES_MAX = 100;
const RANGE_LENGTH_MAX = 64;

/**
 * D15's IP allowlist as rows of CIDR ranges, each checked as it is left
 * (the service's rules and words), beside the address this browser is
 * seen from. A list that would leave that address out is explained
 * as it is typed and never sent (P77 would refuse it and keep the old one).
 */
export function AllowlistEditor({
  organization,
  address,
  addressUnknown,
  onSaved,
}: {
  readonly organization: OrganizationView;
  readonly address: string | null;
  readonly addressUnknown: boolean;
  readonly onSaved: (updated: OrganizationView) => void;
}) {
  const stored = organization.settings.ip_allowlist;
  const enterprise = organization.plan === 'enterprise';
  return (
    <section class="panel" aria-labelledby="allowlist-heading">
      <h2 id="allowlist-heading">IP allowlist</h2>
      <p>
        When the list holds ranges, the organization’s API keys and everyone’s sessions work only
        from addresses inside them; anywhere else they are refused. An empty list allows every
        address.
      </p>
      {address ? (
        <p>
          You are using the console from <strong class="people-address">{address}</strong>
          {stored.length > 0
            ? stored.some((range) => rangeContains(range, address))
              ? ', which the saved list allows.'
              : '.'
            : '.'}
        </p>
      ) : addressUnknown ? (
        <p>
          The address you are using the console from could not be read; the service still refuses a
          list that leaves it out.
        </p>
      ) : null}
      {enterprise ? (
        <RangesForm organization={organization} address={address} onSaved={onSaved} />
      ) : (
        <NotOnPlan organization={organization} onSaved={onSaved} />
      )}
    </section>
  );
}

/** Below enterprise ("enterprise only"): why there is no editor, and a way to clear a list left from before. */
function NotOnPlan({
  organization,
  onSaved,
}: {
  readonly organization: OrganizationView;
  readonly onSaved: (updated: OrganizationView) => void;
}) {
  const { session } = useApp();
  const stored = organization.settings.ip_allowlist;
  const clear = useAction(async () => {
    onSaved(
      await unwrap(
        session.api.PUT('/api/v1/organizations/{id}', {
          params: { path: { id: organization.id } },
          body: { settings: { ip_allowlist: [] } },
        }),
      ),
    );
  });
  return (
    <>
      <p class="notice">
        An IP allowlist needs the enterprise plan; this organization is on the {organization.plan}{' '}
        plan. The service’s operator changes plans.
      </p>
      {stored.length > 0 ? (
        <>
          <p>Ranges kept from before (still applied):</p>
          <ul>
            {stored.map((range) => (
              <li key={range}>
                <code>{range}</code>
              </li>
            ))}
          </ul>
          <button
            type="button"
            class="button"
            disabled={clear.pending.value}
            onClick={() => void clear.run()}
          >
            Remove the allowlist
          </button>
          {clear.failure.value ? <ErrorNotice error={clear.failure.value} /> : null}
        </>
      ) : null}
    </>
  );
}

function RangesForm({
  organization,
  address,
  onSaved,
}: {
  readonly organization: OrganizationView;
  readonly address: string | null;
  readonly onSaved: (updated: OrganizationView) => void;
}) {
  const { session } = useApp();
  const rows = useSignal<readonly RangeRow[]>(
    organization.settings.ip_allowlist.map((range) => rangeRow(range, true)),
  );
  /** Problems the service named, by row, until the row is edited. */
  const refused = useSignal<ReadonlyMap<number, string>>(new Map());
  const done = useSignal<string | null>(null);
  const list = useRef<HTMLUListElement>(null);
  const sentRows = useRef<ReadonlyArray<{ key: number; range: string }>>([]);
  const save = useAction(async (sent: ReadonlyArray<{ key: number; range: string }>) => {
    sentRows.current = sent;
    const updated = await unwrap(
      session.api.PUT('/api/v1/organizations/{id}', {
        params: { path: { id: organization.id } },
        body: { settings: { ip_allowlist: sent.map((entry) => entry.range) } },
      }),
    );
    rows.value = updated.settings.ip_allowlist.map((range) => rangeRow(range, true));
    onSaved(updated);
  });

  const current = rows.value;
  const sending = rangesToSend(current);
  const shutOut =
    address !== null &&
    wouldShutOut(
      sending.map((entry) => entry.range),
      address,
    );
  const ownRange = address ? rangeForAddress(address) : null;
  const failure = save.failure.value;
  const problemOf = (row: RangeRow) =>
    refused.value.get(row.key) ?? (row.touched ? rowProblem(row) : null);

  const focusRow = (key: number) =>
    setTimeout(() => list.current?.querySelector<HTMLInputElement>(`#range-${key}`)?.focus());
  const edit = (key: number, change: Partial<RangeRow>) => {
    rows.value = rows.value.map((row) => (row.key === key ? { ...row, ...change } : row));
    if (refused.value.has(key)) {
      const rest = new Map(refused.value);
      rest.delete(key);
      refused.value = rest;
    }
    done.value = null;
  };
  const add = (text = '') => {
    const row = rangeRow(text, text !== '');
    rows.value = [...rows.value, row];
    done.value = null;
    if (text === '') focusRow(row.key);
  };
  const remove = (index: number) => {
    const next = rows.value.filter((_, at) => at !== index);
    rows.value = next;
    done.value = null;
    const neighbour = next[Math.min(index, next.length - 1)];
    setTimeout(() => {
      const target = neighbour
        ? list.current?.querySelector<HTMLElement>(`#range-${neighbour.key}`)
        : document.getElementById('allowlist-add');
      target?.focus();
    });
  };

  const submit = async (event: SubmitEvent) => {
    event.preventDefault();
    rows.value = rows.value.map((row) => ({ ...row, touched: true }));
    const firstBad = rows.value.find((row) => rowProblem(row) !== null);
    if (firstBad) {
      focusRow(firstBad.key);
      return;
    }
    if (shutOut) {
      document.getElementById('allowlist-shut-out')?.focus();
      return;
    }
    const sent = rangesToSend(rows.value);
    refused.value = new Map();
    if (await save.run(sent)) {
      done.value =
        sent.length === 0
          ? 'Saved: the list is empty, so every address is allowed.'
          : 'Saved. Running functions apply the list within 30 seconds.';
    } else if (save.failure.value instanceof ApiError) {
      refused.value = problemsByRow(save.failure.value.fields, sentRows.current);
    }
  };

  const rowFailure = refused.value.size > 0;
  return (
    <form class="form people-ranges-form" noValidate onSubmit={(event) => void submit(event)}>
      <p id="allowlist-hint" class="form__hint">
        One CIDR range a row: <code>203.0.113.0/24</code> for a block, <code>203.0.113.7/32</code>{' '}
        for one address, <code>2001:db8::/32</code> for IPv6. At most {RANGES_MAX} ranges.
      </p>
      {current.length === 0 ? <p>No ranges: every address is allowed.</p> : null}
      <ul class="people-ranges" ref={list} aria-label="Ranges">
        {current.map((row, index) => {
          const problem = problemOf(row);
          return (
            <li key={row.key} class="people-range">
              <label for={`range-${row.key}`}>Range {index + 1}</label>
              <div class="people-range__line">
                <input
                  id={`range-${row.key}`}
                  value={row.text}
                  maxLength={RANGE_LENGTH_MAX}
                  autoComplete="off"
                  spellcheck={false}
                  aria-invalid={problem ? 'true' : undefined}
                  aria-describedby={problem ? `range-${row.key}-problem` : 'allowlist-hint'}
                  onInput={(event) => edit(row.key, { text: event.currentTarget.value })}
                  onBlur={() => edit(row.key, { touched: true })}
                />
                <button
                  type="button"
                  class="button button--small"
                  aria-label={`Remove range ${index + 1}`}
                  onClick={() => remove(index)}
                >
                  Remove
                </button>
              </div>
              {problem ? (
                <p id={`range-${row.key}-problem`} class="people-field-problem">
                  {problem}
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      {current.length < RANGES_MAX ? (
        <div class="form__actions">
          <button type="button" id="allowlist-add" class="button" onClick={() => add()}>
            Add range
          </button>
        </div>
      ) : null}
      {shutOut && address ? (
        <div id="allowlist-shut-out" class="error-notice" role="alert" tabIndex={-1}>
          <p>
            This list leaves out your own address, {address}. Saved, it would refuse this browser at
            once — your session and every key used from here — so the service will not accept it,
            and nothing is sent. Add a range that contains {address}.
          </p>
          {ownRange ? (
            <p>
              <button type="button" class="button button--small" onClick={() => add(ownRange)}>
                Add {ownRange}
              </button>
            </p>
          ) : null}
          <p>
            If the address you work from changes later, the service’s operator can clear the list (
            <code>svc orgs update --clear-ip-allowlist</code>).
          </p>
        </div>
      ) : null}
      <div class="form__actions">
        <button type="submit" class="button button--primary" disabled={save.pending.value}>
          {save.pending.value ? 'Saving…' : 'Save allowlist'}
        </button>
      </div>
      {done.value ? (
        <p class="notice" role="status">
          {done.value}
        </p>
      ) : null}
      {failure && rowFailure ? (
        <p class="error-notice" role="alert">
          The service refused the ranges marked above; nothing was saved.
        </p>
      ) : failure ? (
        <ErrorNotice error={failure} />
      ) : null}
    </form>
  );
}
