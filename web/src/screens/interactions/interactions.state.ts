import type { ApiPaths } from '../../api/client';

export type InteractionList =
  ApiPaths['/api/v1/interactions']['get']['responses'][200]['content']['application/json'];
export type Interaction = InteractionList['interactions'][number];

/** `feedback` as GET /api/v1/interactions takes it; '' is any feedback. */
export type FeedbackFilter = '' | 'positive' | 'negative' | 'null';

/** `answered` as GET /api/v1/interactions takes it; '' is answered or not. */
export type AnsweredFilter = '' | 'true' | 'false';

/** The longest search the API takes. */
export const SEARCH_MAX = 200;

/** What the list is filtered by: the address holds it (`?agent_id=…&start_date=…`), so a reload or a shared link shows the same list. */
export interface InteractionFilters {
  readonly agentId: string;
  /** YYYY-MM-DD (whole UTC days, both ends included), or ''. */
  readonly startDate: string;
  readonly endDate: string;
  readonly feedback: FeedbackFilter;
  /** Text to find in the question or the answer, or ''. */
  readonly text: string;
  /** 'false': only the questions the agent said it could not answer. */
  readonly answered: AnsweredFilter;
  /** From 1. */
  readonly page: number;
}

export const PAGE_SIZE = 20;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
const AGENT_ID = /^agt_[0-9A-Za-z]+$/;

/** The filters an address asks for; anything malformed is left out rather than sent for a 400. */
export function filtersFromQuery(
  query: Readonly<Record<string, string | undefined>>,
): InteractionFilters {
  const page = Number(query.page);
  const feedback = query.feedback;
  const text = (query.q ?? '').trim().slice(0, SEARCH_MAX);
  return {
    agentId: query.agent_id && AGENT_ID.test(query.agent_id) ? query.agent_id : '',
    startDate: isDate(query.start_date) ? query.start_date : '',
    endDate: isDate(query.end_date) ? query.end_date : '',
    feedback:
      feedback === 'positive' || feedback === 'negative' || feedback === 'null' ? feedback : '',
    text,
    answered: query.answered === 'true' || query.answered === 'false' ? query.answered : '',
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** The address of a list: only the filters that are set, and the page when it is not the first. */
export function addressOf(filters: InteractionFilters): string {
  const query = new URLSearchParams();
  if (filters.agentId) query.set('agent_id', filters.agentId);
  if (filters.startDate) query.set('start_date', filters.startDate);
  if (filters.endDate) query.set('end_date', filters.endDate);
  if (filters.feedback) query.set('feedback', filters.feedback);
  if (filters.text) query.set('q', filters.text);
  if (filters.answered) query.set('answered', filters.answered);
  if (filters.page > 1) query.set('page', String(filters.page));
  const text = query.toString();
  return text ? `/interactions?${text}` : '/interactions';
}

/** The filters as GET /api/v1/interactions's query (without limit and offset). */
export function apiFilters(filters: InteractionFilters): {
  agent_id?: string;
  start_date?: string;
  end_date?: string;
  feedback?: 'positive' | 'negative' | 'null';
  q?: string;
  answered?: 'true' | 'false';
} {
  return {
    ...(filters.agentId ? { agent_id: filters.agentId } : {}),
    ...(filters.startDate ? { start_date: filters.startDate } : {}),
    ...(filters.endDate ? { end_date: filters.endDate } : {}),
    ...(filters.feedback ? { feedback: filters.feedback } : {}),
    ...(filters.text ? { q: filters.text } : {}),
    ...(filters.answered ? { answered: filters.answered } : {}),
  };
}

export function hasFilters(filters: InteractionFilters): boolean {
  return Boolean(
    filters.agentId ||
      filters.startDate ||
      filters.endDate ||
      filters.feedback ||
      filters.text ||
      filters.answered,
  );
}

/** Why a filter form cannot be applied, in words, or null. */
export function filterProblem(filters: InteractionFilters): string | null {
  if (filters.startDate && filters.endDate && filters.startDate > filters.endDate) {
    return 'The start date is after the end date: pick dates in order.';
  }
  return null;
}

function isDate(value: string | undefined): value is string {
  if (!value || !DATE.test(value)) return false;
  const date = new Date(`${value}T00:00:00.000Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
}
