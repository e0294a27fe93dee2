import type { RagStrategy } from '../../domain/agent';
import { usableBy } from '../../domain/agent-access';
import { TenantMismatchError } from '../../domain/errors';
import { agentAccessOf, type Principal } from '../../domain/principal';
import { absoluteDocumentUrl } from '../../domain/uploaded-file';
import type { AgentRepository } from '../../ports/agent-repository.port';
import type { Clock } from '../../ports/clock.port';
import type { DataSourceRepository } from '../../ports/data-source-repository.port';
import { type RetrieveDependencies, retrieve } from './retrieve';

export interface SemanticSearchInput {
  readonly query: string;
  readonly org_id: string;
  readonly top_k: number;
  readonly similarity_threshold: number;
  readonly data_source_ids?: readonly string[] | undefined;
  readonly include_embedding: boolean;
  /** Issue 10: the retrieval strategy; the schema defaults it to agents' default, `hybrid`. */
  readonly rag_strategy: RagStrategy;
  /** The service's public origin, that an uploaded file's `document_url` is made absolute with. */
  readonly link_origin?: string;
}

/**
 * A user whose groups restrict their agents searches only the data
 * sources of the agents they may use; others they name are searched as ids
 * that do not exist are (nothing is found in them).
 */
async function searchableDataSources(
  deps: { readonly agents: Pick<AgentRepository, 'list'> },
  principal: Principal,
): Promise<'all' | Set<string>> {
  const access = agentAccessOf(principal);
  if (access.kind === 'all') return 'all';
  const agents = await deps.agents.list(principal.orgId, {
    limit: Number.MAX_SAFE_INTEGER,
    offset: 0,
  });
  return new Set(
    usableBy(access, agents.items, (agent) => agent.id).flatMap((agent) => agent.data_source_ids),
  );
}

/**
 * The data sources a search covers: those named, or "all the organization's
 * data sources" — those that exist, so chunks of a data source deleted
 * mid-sync are never returned. For a restricted user, only those of
 * their agents.
 */
async function dataSourcesToSearch(
  deps: {
    readonly dataSources: Pick<DataSourceRepository, 'list'>;
    readonly agents: Pick<AgentRepository, 'list'>;
  },
  principal: Principal,
  named: readonly string[] | undefined,
): Promise<readonly string[]> {
  const searchable = await searchableDataSources(deps, principal);
  if (named) return searchable === 'all' ? named : named.filter((id) => searchable.has(id));
  if (searchable !== 'all') return [...searchable];
  const { items } = await deps.dataSources.list(
    principal.orgId,
    {},
    { limit: Number.MAX_SAFE_INTEGER, offset: 0 },
  );
  return items.map((source) => source.id);
}

/**
 * The best chunks, without an answer. `org_id` must be the caller's
 * organization (403 otherwise); all its data sources unless some are named;
 * `query_embedding` only when asked for (it is large). Issue 10:
 * ranked by the retrieval strategy named (`hybrid`, agents' default, unless the
 * caller names another) exactly as an agent's query retrieves (`retrieve`);
 * `similarity_score` stays the cosine similarity, which
 * `similarity_threshold` bounds, whatever ranked the chunk; `rank` (from 1)
 * and `score` (the strategy's own, non-increasing down the list) say the
 * order.
 */
export async function semanticSearch(
  deps: RetrieveDependencies & {
    readonly clock: Clock;
    readonly dataSources: Pick<DataSourceRepository, 'list'>;
    readonly agents: Pick<AgentRepository, 'list'>;
  },
  principal: Principal,
  input: SemanticSearchInput,
) {
  if (input.org_id !== principal.orgId) {
    throw new TenantMismatchError('org_id must be the organization of the API key');
  }
  const started = deps.clock.now().getTime();
  const dataSourceIds = await dataSourcesToSearch(deps, principal, input.data_source_ids);
  const filter = { orgId: principal.orgId, dataSourceIds };
  const { chunks, queryEmbedding } = await retrieve(deps, {
    ...filter,
    query: input.query,
    strategy: input.rag_strategy,
    topK: input.top_k,
  });
  const searched = await deps.retrieval.count(filter);
  return {
    chunks: chunks
      .filter((found) => found.similarity >= input.similarity_threshold)
      .map(({ chunk, similarity, score }, index) => ({
        chunk_id: chunk.chunk_id,
        text: chunk.text,
        rank: index + 1,
        score,
        similarity_score: similarity,
        document_id: chunk.document_id,
        document_title: chunk.document_title,
        document_url: absoluteDocumentUrl(chunk.document_url, input.link_origin ?? ''),
        data_source_id: chunk.data_source_id,
        heading_path: [...chunk.heading_path],
      })),
    ...(input.include_embedding ? { query_embedding: queryEmbedding } : {}),
    metadata: {
      total_chunks_searched: searched,
      latency_ms: Math.max(0, deps.clock.now().getTime() - started),
      embedder: deps.embedder.id,
      rag_strategy: input.rag_strategy,
    },
  };
}
