/**
 * The questions of a new evaluation, read in the browser from pasted text
 * or a CSV file and checked against the API's limits before anything is
 * sent (docs/evaluations.md, "Starting a run"), so a bad row is named by
 * its line number rather than by a `400` about `questions[37]`.
 */

/** The API's limits (layers/core/domain/evaluation.ts, EVALUATION_LIMITS). */
export const QUESTION_LIMITS = {
  questionsMax: 500,
  questionMax: 4_000,
  expectedAnswerMax: 20_000,
  expectedSourcesMax: 20,
  expectedSourceMax: 2_048,
  nameMax: 200,
} as const;

export interface SetQuestion {
  readonly question: string;
  readonly expected_answer?: string;
  readonly expected_sources?: string[];
}

export interface LineProblem {
  /** The line of the text or file where the row starts (from 1). */
  readonly line: number;
  readonly message: string;
}

export interface QuestionSet {
  readonly questions: readonly SetQuestion[];
  /** Rows that cannot be sent, each named by its line; nothing is sent while there are any. */
  readonly problems: readonly LineProblem[];
}

const count = (value: number) => value.toLocaleString('en-US');

/** A row's own problems: the API's per-question limits, in words. */
function rowProblems(question: SetQuestion): string[] {
  const problems: string[] = [];
  if (question.question.length === 0) problems.push('the question is empty');
  if (question.question.length > QUESTION_LIMITS.questionMax) {
    problems.push(
      `the question is ${count(question.question.length)} characters long (at most ${count(QUESTION_LIMITS.questionMax)})`,
    );
  }
  const answer = question.expected_answer ?? '';
  if (answer.length > QUESTION_LIMITS.expectedAnswerMax) {
    problems.push(
      `the expected answer is ${count(answer.length)} characters long (at most ${count(QUESTION_LIMITS.expectedAnswerMax)})`,
    );
  }
  const sources = question.expected_sources ?? [];
  if (sources.length > QUESTION_LIMITS.expectedSourcesMax) {
    problems.push(
      `${sources.length} expected sources (at most ${QUESTION_LIMITS.expectedSourcesMax})`,
    );
  }
  if (sources.some((source) => source.length > QUESTION_LIMITS.expectedSourceMax)) {
    problems.push(
      `an expected source is longer than ${count(QUESTION_LIMITS.expectedSourceMax)} characters`,
    );
  }
  return problems;
}

/** The whole set's problem: none, or too many questions. */
export function setProblem(questions: number): string | null {
  if (questions === 0) return 'There is no question to ask yet.';
  if (questions > QUESTION_LIMITS.questionsMax) {
    return `${count(questions)} questions: a run holds at most ${QUESTION_LIMITS.questionsMax}. Split them into several runs.`;
  }
  return null;
}

function withOptional(question: string, answer: string, sources: string[]): SetQuestion {
  return {
    question,
    ...(answer ? { expected_answer: answer } : {}),
    ...(sources.length > 0 ? { expected_sources: sources } : {}),
  };
}

/**
 * Pasted text: one question a line; blank lines are skipped. A line pasted
 * from two spreadsheet columns (a tab between them) is a question and its
 * expected answer.
 */
export function questionsFromText(text: string): QuestionSet {
  const questions: SetQuestion[] = [];
  const problems: LineProblem[] = [];
  text.split(/\r\n|\n|\r/).forEach((raw, index) => {
    if (raw.trim() === '') return;
    const [question = '', ...rest] = raw.split('\t');
    const row = withOptional(question.trim(), rest.join(' ').trim(), []);
    const found = rowProblems(row);
    if (found.length > 0) problems.push({ line: index + 1, message: sentence(found) });
    else questions.push(row);
  });
  return { questions, problems };
}

export interface CsvRecord {
  /** The line the record starts on (a quoted field may span several). */
  readonly line: number;
  readonly cells: readonly string[];
}

export class CsvSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
  ) {
    super(message);
    this.name = 'CsvSyntaxError';
  }
}

/**
 * RFC 4180, as spreadsheets write it: fields separated by commas, records
 * by CRLF or LF (a lone CR too), a field in double quotes may hold commas,
 * line breaks and doubled quotes (`""`). A UTF-8 byte order mark is
 * dropped. A quote inside an unquoted field, text after a closing quote
 * or a quote never closed is an error naming its line (a lenient reading
 * would silently shift every later column).
 */
export function parseCsv(text: string): CsvRecord[] {
  const input = text.startsWith('\uFEFF') ? text.slice(1) : text;
  const records: CsvRecord[] = [];
  let cells: string[] = [];
  let field = '';
  let line = 1;
  let recordLine = 1;
  let quoted = false;
  let quoteLine = 0;
  let afterQuote = false;
  const endField = () => {
    cells.push(field);
    field = '';
    afterQuote = false;
  };
  const endRecord = () => {
    endField();
    // A line with nothing on it is no record (a trailing newline, a blank line between rows).
    if (!(cells.length === 1 && cells[0] === '')) records.push({ line: recordLine, cells });
    cells = [];
  };
  for (let at = 0; at < input.length; at += 1) {
    const char = input[at];
    if (quoted) {
      if (char === '"') {
        if (input[at + 1] === '"') {
          field += '"';
          at += 1;
        } else {
          quoted = false;
          afterQuote = true;
        }
      } else {
        if (char === '\n' || (char === '\r' && input[at + 1] !== '\n')) line += 1;
        field += char;
      }
      continue;
    }
    if (char === ',') {
      endField();
    } else if (char === '\r' || char === '\n') {
      if (char === '\r' && input[at + 1] === '\n') at += 1;
      endRecord();
      line += 1;
      recordLine = line;
    } else if (afterQuote) {
      throw new CsvSyntaxError(line, `text after a closing quote on line ${line}`);
    } else if (char === '"') {
      if (field !== '') {
        throw new CsvSyntaxError(
          line,
          `a quote inside an unquoted field on line ${line} (put the whole field in quotes and double the quote)`,
        );
      }
      quoted = true;
      quoteLine = line;
    } else {
      field += char;
    }
  }
  if (quoted) {
    throw new CsvSyntaxError(quoteLine, `a quote opened on line ${quoteLine} is never closed`);
  }
  if (field !== '' || cells.length > 0 || afterQuote) endRecord();
  return records;
}

/** The CSV columns the console reads, by their header names. */
export const CSV_COLUMNS = ['question', 'expected_answer', 'expected_sources'] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];

const headerName = (cell: string) =>
  cell
    .trim()
    .toLowerCase()
    .replace(/[\s-]+/g, '_') as CsvColumn;

/** Several expected sources in one cell: one a line, or separated by `|`. */
export function splitSources(cell: string): string[] {
  return cell
    .split(/\r\n|\n|\r|\|/)
    .map((source) => source.trim())
    .filter((source) => source !== '');
}

/**
 * A CSV of questions. The first row names the columns when it holds
 * `question` (any case; `expected_answer` and `expected_sources` optional,
 * other columns ignored); without such a header the columns are taken as
 * question, expected answer, expected sources. Each bad row is named by
 * its line.
 */
export function questionsFromCsv(text: string): QuestionSet {
  let records: CsvRecord[];
  try {
    records = parseCsv(text);
  } catch (error) {
    if (error instanceof CsvSyntaxError) {
      return {
        questions: [],
        problems: [{ line: error.line, message: `The file is not valid CSV: ${error.message}.` }],
      };
    }
    throw error;
  }
  const first = records[0];
  const header = first?.cells.map(headerName) ?? [];
  const hasHeader = header.includes('question');
  const columnOf = (name: CsvColumn) =>
    hasHeader ? header.indexOf(name) : CSV_COLUMNS.indexOf(name);
  const [questionAt, answerAt, sourcesAt] = CSV_COLUMNS.map(columnOf);
  const questions: SetQuestion[] = [];
  const problems: LineProblem[] = [];
  for (const record of hasHeader ? records.slice(1) : records) {
    const cell = (at: number | undefined) =>
      at === undefined || at < 0 ? '' : (record.cells[at] ?? '');
    const row = withOptional(
      cell(questionAt).trim(),
      cell(answerAt).trim(),
      splitSources(cell(sourcesAt)),
    );
    if (record.cells.every((value) => value.trim() === '')) continue;
    const found = rowProblems(row);
    if (found.length > 0) problems.push({ line: record.line, message: sentence(found) });
    else questions.push(row);
  }
  return { questions, problems };
}

/** "the question is empty" → "The question is empty." */
function sentence(parts: readonly string[]): string {
  const text = parts.join('; ');
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}
