import { ApiError } from '../../api/api-error';
import type { Interaction, InteractionList } from './interactions.state';

/**
 * The filtered list as a CSV file, made in the browser from every page of
 * GET /api/v1/interactions (not just the page on screen).
 */

/** The most rows one export holds (50 requests of 200, the lists' largest page); past it the file says it is cut. */
export const EXPORT_MAX_ROWS = 10_000;
export const EXPORT_PAGE_SIZE = 200;
/** A 429 during an export is waited out when the wait is at most this long, up to this many times in a row. */
const LONGEST_WAIT_S = 60;
const RETRIES = 3;

/**
 * One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line
 * break, quotes doubled. Text starting with `=`, `+`, `-`, `@`, a tab or a
 * carriage return gets a leading `'` so a spreadsheet shows it as text
 * instead of running it as a formula (a question typed by anyone could
 * otherwise be `=HYPERLINK(…)`). Numbers are written as numbers.
 */
export function csvField(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  const text = /^[=+\-@\t\r]/.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function csvRow(values: ReadonlyArray<string | number | null | undefined>): string {
  return values.map(csvField).join(',');
}

const COLUMNS = [
  'id',
  'created_at',
  'agent_id',
  'agent_name',
  'question',
  'answer',
  'feedback',
  'feedback_comment',
  'cited_sources',
  'sources',
  'latency_ms',
  'tokens_input',
  'tokens_output',
  'cost_usd',
  'billed_to',
  'model',
  'rag_strategy',
  'user_id',
  'key_id',
  'asked_by',
  'asked_by_email',
  'session_id',
] as const;

/**
 * The file's text: a header row, one row per interaction, CRLF line ends
 * (RFC 4180) and a byte order mark so spreadsheets read it as UTF-8.
 * `sources` lists each source as `rank. title <url>`, one per line.
 */
export function interactionsCsv(
  interactions: readonly Interaction[],
  agentNames: ReadonlyMap<string, string>,
): string {
  const rows = interactions.map((interaction) =>
    csvRow([
      interaction.id,
      interaction.created_at,
      interaction.agent_id,
      agentNames.get(interaction.agent_id) ?? '',
      interaction.query,
      interaction.response,
      interaction.feedback ?? '',
      interaction.feedback_comment ?? '',
      interaction.cited_sources,
      interaction.sources
        .map(
          (source) =>
            `${source.rank}. ${source.document_title}${source.document_url ? ` <${source.document_url}>` : ''}`,
        )
        .join('\n'),
      interaction.latency_ms,
      interaction.tokens_input,
      interaction.tokens_output,
      interaction.cost_usd,
      interaction.billed_to ?? 'service',
      interaction.model,
      interaction.rag_strategy,
      interaction.user_id ?? '',
      interaction.key_id ?? '',
      interaction.asked_by?.name ?? '',
      interaction.asked_by?.email ?? '',
      interaction.session_id,
    ]),
  );
  return `\uFEFF${[csvRow(COLUMNS), ...rows].join('\r\n')}\r\n`;
}

export interface ExportProgress {
  readonly fetched: number;
  readonly total: number;
  /** Seconds being waited for the rate limit, or null. */
  readonly waiting: number | null;
}

export interface ExportResult {
  readonly interactions: readonly Interaction[];
  /** How many the filters match; more than `interactions.length` when the export was cut at EXPORT_MAX_ROWS. */
  readonly total: number;
  readonly truncated: boolean;
}

/**
 * Every page of the filtered list, newest first, up to `maxRows`. An
 * interaction asked while paging pushes the list down by one, so the next
 * page repeats a row: rows are kept once by id. A short 429 is waited out
 * (the service says how long); anything else, or a long wait, fails the
 * export with its ApiError.
 */
export async function fetchAllPages(
  fetchPage: (limit: number, offset: number, signal: AbortSignal) => Promise<InteractionList>,
  options: {
    readonly signal: AbortSignal;
    readonly maxRows?: number;
    readonly onProgress?: (progress: ExportProgress) => void;
    readonly sleep?: (seconds: number, signal: AbortSignal) => Promise<void>;
  },
): Promise<ExportResult> {
  const maxRows = options.maxRows ?? EXPORT_MAX_ROWS;
  const sleep = options.sleep ?? sleepFor;
  const seen = new Set<string>();
  const kept: Interaction[] = [];
  let total = 0;
  let offset = 0;
  let retries = 0;
  for (;;) {
    let page: InteractionList;
    try {
      page = await fetchPage(Math.min(EXPORT_PAGE_SIZE, maxRows - offset), offset, options.signal);
    } catch (failure) {
      const wait =
        failure instanceof ApiError && failure.status === 429 ? failure.retryAfter : null;
      if (wait === null || wait > LONGEST_WAIT_S || retries >= RETRIES) throw failure;
      retries += 1;
      options.onProgress?.({ fetched: kept.length, total, waiting: wait });
      await sleep(wait, options.signal);
      continue;
    }
    retries = 0;
    total = page.total;
    for (const interaction of page.interactions) {
      if (seen.has(interaction.id)) continue;
      seen.add(interaction.id);
      kept.push(interaction);
    }
    offset += page.interactions.length;
    options.onProgress?.({ fetched: kept.length, total, waiting: null });
    if (page.interactions.length === 0 || offset >= total || offset >= maxRows) break;
  }
  const interactions = kept.slice(0, maxRows);
  return { interactions, total, truncated: total > interactions.length };
}

function sleepFor(seconds: number, signal: AbortSignal): Promise<void> {
  return new Promise((done, fail) => {
    const timer = setTimeout(done, Math.ceil(seconds) * 1000);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        fail(new DOMException('The export was stopped.', 'AbortError'));
      },
      { once: true },
    );
  });
}

/** `interactions-2026-11-27.csv`, or with the filters' dates: `interactions-2026-11-01-to-2026-11-27.csv`. */
export function exportFileName(
  startDate: string,
  endDate: string,
  today: Date = new Date(),
): string {
  if (!startDate && !endDate) return `interactions-${today.toISOString().slice(0, 10)}.csv`;
  return `interactions-${startDate || 'start'}-to-${endDate || today.toISOString().slice(0, 10)}.csv`;
}

/**
 * Saves text as a file: a Blob URL on a download link, clicked. A link's
 * navigation is not script, so the CSP's `script-src 'self'` does not
 * apply, and no policy names `blob:` for navigation; the URL is revoked
 * once the browser has taken the file.
 */
export function downloadText(text: string, fileName: string, type = 'text/csv;charset=utf-8') {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = document.createElement('a');
  link.href = url;
  link.download = fileName;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
