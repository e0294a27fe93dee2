import { ApiError } from '../../api/api-error';
import { type ApiClient, unwrap } from '../../api/client';
import type { components } from '../../api/schema';
import { serverEvents } from '../../api/server-events';
import { applyEvent, askFailure, cutTurn, type Turn } from './agents.state';

export type DataSource = components['schemas']['DataSource'];
export type ModelChoice = components['schemas']['ModelChoice'];

/** The lists' largest page: the lists the form chooses from are read whole, a page at a time. */
const WHOLE_PAGE = 200;

/** Every data source of the organization (an agent chooses up to 100 of them). */
export async function allDataSources(api: ApiClient, signal: AbortSignal): Promise<DataSource[]> {
  const all: DataSource[] = [];
  for (let offset = 0; ; offset += WHOLE_PAGE) {
    const page = await unwrap(
      api.GET('/api/v1/data-sources', {
        params: { query: { limit: String(WHOLE_PAGE), offset: String(offset) } },
        signal,
      }),
    );
    all.push(...page.data_sources);
    if (page.data_sources.length < WHOLE_PAGE || all.length >= page.total) return all;
  }
}

/** Where an agent can get answers (the service's provider, the organization's model keys) and their models. */
export async function allModelChoices(api: ApiClient, signal: AbortSignal): Promise<ModelChoice[]> {
  const list = await unwrap(api.GET('/api/v1/models', { signal }));
  return list.choices;
}

/**
 * Every data source, the knowledge base's among them: the built-in source
 * is made the first time articles are listed, so an organization that never
 * opened the knowledge base gets it here, to be offered to the agent.
 */
export async function sourcesWithKnowledgeBase(
  api: ApiClient,
  signal: AbortSignal,
): Promise<DataSource[]> {
  const sources = await allDataSources(api, signal);
  if (sources.some((source) => source.type === 'kb')) return sources;
  await unwrap(api.GET('/api/v1/kb', { params: { query: { limit: '1' } }, signal }));
  return allDataSources(api, signal);
}

/**
 * Asks an agent with `stream: true` and reports the turn after every
 * event: over `fetch` (CONSOLE.md §6), since `EventSource` cannot POST or
 * send the CSRF header. A refusal before the stream starts (429, 409, 404)
 * fails the turn in words; a stream that drops, or ends without `done` or
 * `error`, leaves the text so far marked as cut off.
 */
export async function askStreaming(
  api: ApiClient,
  request: { agent_id: string; query: string; session_id?: string },
  first: Turn,
  onTurn: (turn: Turn) => void,
  signal: AbortSignal,
): Promise<Turn> {
  let turn = first;
  const report = (next: Turn) => {
    turn = next;
    onTurn(next);
    return next;
  };
  let result: { data?: ReadableStream<Uint8Array> | null; error?: unknown; response: Response };
  try {
    result = await api.POST('/api/v1/query', {
      body: { ...request, stream: true },
      parseAs: 'stream',
      signal,
    });
  } catch (cause) {
    return report({ ...turn, status: 'failed', error: ApiError.unreachable(cause) });
  }
  if (!result.response.ok || !result.data) {
    const error = ApiError.from(result.error, result.response);
    return report({ ...turn, status: 'failed', error: askFailure(error) });
  }
  try {
    for await (const event of serverEvents(result.data)) {
      report(applyEvent(turn, event));
      if (turn.status !== 'streaming') return turn;
    }
  } catch {
    if (signal.aborted) return turn;
    return report(cutTurn(turn));
  }
  return turn.status === 'streaming' ? report(cutTurn(turn)) : turn;
}
