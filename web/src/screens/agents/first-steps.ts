/**
 * The first steps a new organization takes, ticked off from what the API
 * says exists (never from what the console remembers doing): a data source,
 * one with indexed chunks, an agent, a question asked, a second person.
 */

/** What the checklist is computed from, read from the API's lists. */
export interface OrganizationState {
  /** Data sources other than the built-in knowledge base. */
  readonly sources: ReadonlyArray<{ readonly id: string; readonly chunks_indexed: number }>;
  /** The newest agent, if any. */
  readonly agent: { readonly id: string } | null;
  readonly questionsAsked: number;
  /** People in the organization, invited ones too; `null` for whoever may not list them. */
  readonly people: number | null;
}

export interface FirstStep {
  readonly key: 'source' | 'sync' | 'agent' | 'question' | 'colleague';
  readonly title: string;
  readonly done: boolean;
  /** What to do next, as a link's words and address; `null` while an earlier step is missing. */
  readonly action: { readonly label: string; readonly href: string } | null;
}

export function firstSteps(state: OrganizationState): FirstStep[] {
  const synced = state.sources.find((source) => source.chunks_indexed > 0);
  const first = state.sources[0];
  const steps: FirstStep[] = [
    {
      key: 'source',
      title: 'Add a data source: a website or files',
      done: state.sources.length > 0,
      action: { label: 'Add a data source', href: '/data-sources/new' },
    },
    {
      key: 'sync',
      title: 'Let it sync, so its documents can be searched',
      done: synced !== undefined,
      action: first ? { label: 'See its sync', href: `/data-sources/${first.id}` } : null,
    },
    {
      key: 'agent',
      title: 'Make an agent that answers from it',
      done: state.agent !== null,
      action: { label: 'Make an agent', href: '/agents/new' },
    },
    {
      key: 'question',
      title: 'Ask it a question in its playground',
      done: state.questionsAsked > 0,
      action: state.agent
        ? { label: 'Open its playground', href: `/agents/${state.agent.id}` }
        : null,
    },
  ];
  if (state.people === null) return steps;
  return [
    ...steps,
    {
      key: 'colleague',
      title: 'Invite a colleague',
      done: state.people > 1,
      action: { label: 'Invite someone', href: '/settings/users' },
    },
  ];
}

/**
 * Whether to show the list. An organization that had every step done when
 * the list was first read (set up before it existed) never sees it; one that
 * started with steps to take sees it until every step is done and it is
 * dismissed.
 */
export function checklistShown(
  steps: readonly FirstStep[],
  memory: { readonly started: boolean; readonly dismissed: boolean },
): boolean {
  if (memory.dismissed) return false;
  return steps.some((step) => !step.done) || memory.started;
}

/** Where this browser remembers an organization's checklist (nothing secret). */
export const firstStepsStorageKey = (orgId: string) => `svc.first-steps.${orgId}`;
