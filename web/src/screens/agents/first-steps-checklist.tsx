import { useSignal } from '@preact/signals';
import { unwrap } from '../../api/client';
import { useLoad } from '../../api/use-load';
import { useApp } from '../../state/app-context';
import { browserStorage } from '../sign-in/remembered-organization';
import { allDataSources } from './agents-api';
import {
  checklistShown,
  type FirstStep,
  firstSteps,
  firstStepsStorageKey,
  type OrganizationState,
} from './first-steps';
import './first-steps.css';

interface Memory {
  readonly started: boolean;
  readonly dismissed: boolean;
}

function readMemory(orgId: string): Memory {
  try {
    const stored: unknown = JSON.parse(
      browserStorage()?.getItem(firstStepsStorageKey(orgId)) ?? '{}',
    );
    const record = typeof stored === 'object' && stored !== null ? stored : {};
    return {
      started: 'started' in record && record.started === true,
      dismissed: 'dismissed' in record && record.dismissed === true,
    };
  } catch {
    return { started: false, dismissed: false };
  }
}

function writeMemory(orgId: string, memory: Memory): void {
  try {
    browserStorage()?.setItem(firstStepsStorageKey(orgId), JSON.stringify(memory));
  } catch {
    // Refused (private browsing): the list shows again next time, which does no harm.
  }
}

/**
 * "First steps" on the agents screen, for people who may set the
 * organization up: what is done is read from the API each time the screen
 * opens, so a step ticks itself off once it has happened, wherever it was
 * done. Once every step is done the list can be dismissed (this browser
 * remembers it).
 */
export function FirstStepsChecklist() {
  const { session } = useApp();
  const me = session.me.value;
  const orgId = me?.organization.id ?? '';
  const isAdmin = me?.access.role === 'admin';
  const memory = useSignal<Memory>(readMemory(orgId));
  const state = useLoad(
    (signal) => organizationState(session.api, signal, isAdmin),
    [orgId, isAdmin],
  );
  const loaded = state.data.value;
  // Nothing is shown until the answer is in, and a failure only leaves the list out:
  // the screen below reports its own.
  if (!loaded) return null;
  const steps = firstSteps(loaded);
  // Seen with a step to take: from now on the list stays until it is dismissed.
  const remembered = {
    ...memory.value,
    started: memory.value.started || steps.some((step) => !step.done),
  };
  if (remembered.started && !memory.value.started) writeMemory(orgId, remembered);
  if (!checklistShown(steps, remembered)) return null;
  const done = steps.filter((step) => step.done).length;
  const dismiss = () => {
    memory.value = { ...remembered, dismissed: true };
    writeMemory(orgId, memory.value);
  };

  return (
    <section class="first-steps" aria-labelledby="first-steps-heading">
      <h2 id="first-steps-heading">First steps</h2>
      <p>
        {done === steps.length
          ? 'Everything is set up: the organization has answers to give.'
          : `${done} of ${steps.length} done. Each step ticks itself off once it has happened.`}
      </p>
      <ol class="first-steps__list">
        {steps.map((step) => (
          <Step key={step.key} step={step} />
        ))}
      </ol>
      {done === steps.length ? (
        <button type="button" class="button" onClick={dismiss}>
          Dismiss first steps
        </button>
      ) : null}
    </section>
  );
}

function Step({ step }: { readonly step: FirstStep }) {
  return (
    <li class="first-steps__step" data-done={String(step.done)}>
      <svg class="first-steps__mark" viewBox="0 0 20 20" aria-hidden="true" focusable="false">
        <circle cx="10" cy="10" r="8.5" fill="none" stroke="currentColor" stroke-width="1.5" />
        {step.done ? (
          <path
            d="M6 10.5l2.5 2.5L14 7.5"
            fill="none"
            stroke="currentColor"
            stroke-width="2"
            stroke-linecap="round"
            stroke-linejoin="round"
          />
        ) : null}
      </svg>
      <span class="first-steps__title">{step.title}</span>
      <span class="first-steps__state">{step.done ? 'Done' : 'To do'}</span>
      {!step.done && step.action ? (
        <a class="button button--small" href={step.action.href}>
          {step.action.label}
        </a>
      ) : null}
    </li>
  );
}

/** One read of each list the steps depend on, side by side. */
async function organizationState(
  api: Parameters<typeof allDataSources>[0],
  signal: AbortSignal,
  isAdmin: boolean,
): Promise<OrganizationState> {
  const one = { limit: '1' };
  const [sources, agents, interactions, people] = await Promise.all([
    allDataSources(api, signal),
    unwrap(api.GET('/api/v1/agents', { params: { query: one }, signal })),
    unwrap(api.GET('/api/v1/interactions', { params: { query: one }, signal })),
    isAdmin
      ? unwrap(api.GET('/api/v1/users', { params: { query: one }, signal }))
      : Promise.resolve(null),
  ]);
  const newest = agents.agents[0];
  return {
    sources: sources.filter((source) => source.type !== 'kb'),
    agent: newest ? { id: newest.id } : null,
    questionsAsked: interactions.total,
    people: people ? people.total : null,
  };
}
