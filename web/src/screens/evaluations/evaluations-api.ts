import { type ApiClient, unwrap } from '../../api/client';
import type { EvaluationList, EvaluationResult, EvaluationWithResults } from './evaluations.state';
import { RESULTS_PAGE } from './evaluations.state';

/** A run with every result: read 200 at a time (at most 500 questions, so three reads). */
export async function loadRun(
  api: ApiClient,
  id: string,
  signal?: AbortSignal,
): Promise<EvaluationWithResults> {
  const first = await readRun(api, id, 0, RESULTS_PAGE, signal);
  const results: EvaluationResult[] = [...first.results];
  while (results.length < first.question_count) {
    const next = await readRun(api, id, results.length, RESULTS_PAGE, signal);
    if (next.results.length === 0) break;
    results.push(...next.results);
  }
  return { ...first, results };
}

/** The run without its results (one of them at most): what polling needs. */
export function readRunStatus(
  api: ApiClient,
  id: string,
  signal?: AbortSignal,
): Promise<EvaluationWithResults> {
  return readRun(api, id, 0, 1, signal);
}

function readRun(
  api: ApiClient,
  id: string,
  offset: number,
  limit: number,
  signal?: AbortSignal,
): Promise<EvaluationWithResults> {
  return unwrap(
    api.GET('/api/v1/evals/{id}', {
      params: { path: { id }, query: { limit: String(limit), offset: String(offset) } },
      ...(signal ? { signal } : {}),
    }),
  );
}

/** One page of runs, all agents' or one agent's. */
export function loadRuns(
  api: ApiClient,
  query: { readonly agentId: string | null; readonly limit: number; readonly offset: number },
  signal?: AbortSignal,
): Promise<EvaluationList> {
  return unwrap(
    api.GET('/api/v1/evals', {
      params: {
        query: {
          limit: String(query.limit),
          offset: String(query.offset),
          ...(query.agentId ? { agent_id: query.agentId } : {}),
        },
      },
      ...(signal ? { signal } : {}),
    }),
  );
}
