import { useSignal } from '@preact/signals';
import { unwrap } from '../../api/client';
import { useAction } from '../../api/use-action';
import { useLoad } from '../../api/use-load';
import { ErrorNotice } from '../../components/error-notice';
import { formatNumber } from '../../format/format';
import { useApp } from '../../state/app-context';
import {
  type Agent,
  formatScore,
  type RagStrategy,
  SCORE_NAMES,
  type SearchResult,
  STRATEGIES,
} from './agents.state';
import { allDataSources } from './agents-api';

/**
 * Semantic search (POST /api/v1/semantic-search): the ranked passages a
 * strategy finds, before any model writes an answer. Starts from the
 * agent's strategy and data sources; any of the organization's may be
 * searched. Listed in rank order with the strategy's score and the
 * cosine that the threshold bounds, each labelled.
 */
export function SearchTab({ agent }: { readonly agent: Agent }) {
  const { session } = useApp();
  const sources = useLoad((signal) => allDataSources(session.api, signal), []);
  const result = useSignal<SearchResult | null>(null);
  const names = new Map((sources.data.value ?? []).map((source) => [source.id, source.name]));

  const search = useAction(async (form: FormData) => {
    const chosen = form.getAll('data_source_ids').map(String);
    result.value = await unwrap(
      session.api.POST('/api/v1/semantic-search', {
        body: {
          query: String(form.get('query') ?? ''),
          org_id: session.me.value?.organization.id ?? '',
          rag_strategy: String(form.get('rag_strategy')) as RagStrategy,
          top_k: Number(form.get('top_k')),
          similarity_threshold: Number(form.get('similarity_threshold')),
          // None chosen is every data source (an empty list would search nothing).
          ...(chosen.length > 0 ? { data_source_ids: chosen } : {}),
        },
      }),
    );
  });
  const submit = (event: SubmitEvent) => {
    event.preventDefault();
    void search.run(new FormData(event.currentTarget as HTMLFormElement));
  };
  const found = result.value;
  const strategy = found?.metadata.rag_strategy;

  return (
    <div class="search-tab">
      <form class="form" onSubmit={submit}>
        <label for="search-query">Search for</label>
        <input id="search-query" name="query" type="search" required maxLength={4000} />
        <div class="form__row">
          <div class="form__cell">
            <label for="search-strategy">Strategy</label>
            <select id="search-strategy" name="rag_strategy" defaultValue={agent.rag_strategy}>
              {STRATEGIES.map((entry) => (
                <option key={entry.value} value={entry.value}>
                  {entry.label}
                </option>
              ))}
            </select>
          </div>
          <div class="form__cell">
            <label for="search-top-k">Top k</label>
            <input
              id="search-top-k"
              name="top_k"
              type="number"
              required
              min={1}
              max={100}
              step={1}
              defaultValue="10"
            />
          </div>
          <div class="form__cell">
            <label for="search-threshold">Similarity threshold</label>
            <input
              id="search-threshold"
              name="similarity_threshold"
              type="number"
              required
              min={0}
              max={1}
              step="any"
              defaultValue="0"
              aria-describedby="search-threshold-hint"
            />
          </div>
        </div>
        <p id="search-threshold-hint" class="form__hint">
          The least cosine similarity a passage needs (0 to 1); it filters, it does not rank.
        </p>
        <fieldset class="choices-list">
          <legend>Data sources</legend>
          <p class="form__hint">None chosen searches them all.</p>
          {sources.error.value ? <ErrorNotice error={sources.error.value} /> : null}
          {sources.loading.value ? <p role="status">Loading data sources…</p> : null}
          {sources.data.value && sources.data.value.length === 0 ? (
            <p class="form__hint">The organization has no data sources yet.</p>
          ) : null}
          <ul>
            {(sources.data.value ?? []).map((source) => (
              <li key={source.id}>
                <label class="choice">
                  <input
                    type="checkbox"
                    name="data_source_ids"
                    value={source.id}
                    defaultChecked={agent.data_source_ids.includes(source.id)}
                  />
                  {source.name}
                </label>
              </li>
            ))}
          </ul>
        </fieldset>
        <div class="form__actions">
          <button type="submit" class="button button--primary" disabled={search.pending.value}>
            Search
          </button>
        </div>
      </form>
      {search.failure.value ? <ErrorNotice error={search.failure.value} /> : null}
      {found ? (
        <section class="search-results" aria-labelledby="search-results-heading">
          <h2 id="search-results-heading">Passages</h2>
          <p role="status">
            {found.chunks.length === 0
              ? 'Nothing found: no passage of these data sources passes the threshold.'
              : `${formatNumber(found.chunks.length)} ${
                  found.chunks.length === 1 ? 'passage' : 'passages'
                } of ${formatNumber(found.metadata.total_chunks_searched)} searched, ranked by ${
                  found.metadata.rag_strategy
                }, in ${formatNumber(found.metadata.latency_ms)} ms.`}
          </p>
          <ol class="passages">
            {found.chunks.map((chunk) => (
              <li key={chunk.chunk_id} class="passage-card">
                <h3>
                  {chunk.rank}. {chunk.document_title}
                </h3>
                <dl class="answer-facts">
                  <div>
                    <dt>Score ({SCORE_NAMES[strategy ?? 'hybrid']})</dt>
                    <dd>{formatScore(chunk.score)}</dd>
                  </div>
                  <div>
                    <dt>Cosine similarity</dt>
                    <dd>{formatScore(chunk.similarity_score)}</dd>
                  </div>
                  <div>
                    <dt>Data source</dt>
                    <dd>{names.get(chunk.data_source_id) ?? chunk.data_source_id}</dd>
                  </div>
                </dl>
                {chunk.heading_path.length > 0 ? (
                  <p class="form__hint">{chunk.heading_path.join(' › ')}</p>
                ) : null}
                {chunk.document_url ? (
                  <p>
                    <a href={chunk.document_url} target="_blank" rel="noopener noreferrer">
                      {chunk.document_url}
                    </a>
                  </p>
                ) : null}
                <blockquote class="passage">{chunk.text}</blockquote>
              </li>
            ))}
          </ol>
        </section>
      ) : null}
    </div>
  );
}
