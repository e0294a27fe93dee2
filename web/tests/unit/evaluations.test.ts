import { EVALUATION_LIMITS } from '../../../layers/core/domain/evaluation';
import {
  changeOf,
  compareHref,
  type EvaluationResult,
  failureSentence,
  listHref,
  listQueryOf,
  nextRunPoll,
  pageAt,
  pairQuestions,
  pairsSummary,
  progressSentence,
  type Totals,
  totalRows,
} from '../../src/screens/evaluations/evaluations.state';
import {
  CsvSyntaxError,
  parseCsv,
  QUESTION_LIMITS,
  questionsFromCsv,
  questionsFromText,
  setProblem,
  splitSources,
} from '../../src/screens/evaluations/question-set';

describe('reading CSV (RFC 4180)', () => {
  it('splits fields and records, with CRLF, LF or CR line ends and a byte order mark dropped', () => {
    expect(parseCsv('\uFEFFa,b\r\nc,d\ne,f\rg,h')).toEqual([
      { line: 1, cells: ['a', 'b'] },
      { line: 2, cells: ['c', 'd'] },
      { line: 3, cells: ['e', 'f'] },
      { line: 4, cells: ['g', 'h'] },
    ]);
  });

  it('reads quoted fields holding commas, doubled quotes and line breaks, and counts the lines they span', () => {
    const records = parseCsv('q,a\n"Is it, really?","He said ""yes""\nthen left"\nnext,one\n');
    expect(records).toEqual([
      { line: 1, cells: ['q', 'a'] },
      { line: 2, cells: ['Is it, really?', 'He said "yes"\nthen left'] },
      { line: 4, cells: ['next', 'one'] },
    ]);
  });

  it('keeps empty fields and skips blank lines', () => {
    expect(parseCsv('a,,c\n\n,\n""\n')).toEqual([
      { line: 1, cells: ['a', '', 'c'] },
      { line: 3, cells: ['', ''] },
    ]);
  });

  it('refuses what a lenient reader would misread, naming the line', () => {
    const failure = (text: string) => {
      try {
        parseCsv(text);
      } catch (error) {
        return error instanceof CsvSyntaxError ? [error.line, error.message] : error;
      }
      return 'parsed';
    };
    expect(failure('a,b\nsay "hi",x')).toEqual([
      2,
      'a quote inside an unquoted field on line 2 (put the whole field in quotes and double the quote)',
    ]);
    expect(failure('a\n"closed" late,x')).toEqual([2, 'text after a closing quote on line 2']);
    expect(failure('a\nb\n"never\nclosed,x')).toEqual([
      3,
      'a quote opened on line 3 is never closed',
    ]);
  });
});

describe('the limits', () => {
  it("are the API's own (the console checks them before sending)", () => {
    expect(QUESTION_LIMITS).toEqual(EVALUATION_LIMITS);
  });
});

describe('questions from a CSV file', () => {
  it('reads the named columns in any order and case, ignoring others', () => {
    const set = questionsFromCsv(
      'Notes,Expected Answer,QUESTION,expected_sources\n' +
        'x,Two years.,How long is the warranty?,https://help.example/warranty | Returns policy\n' +
        'y,,Which Wi-Fi?,\n',
    );
    expect(set).toEqual({
      questions: [
        {
          question: 'How long is the warranty?',
          expected_answer: 'Two years.',
          expected_sources: ['https://help.example/warranty', 'Returns policy'],
        },
        { question: 'Which Wi-Fi?' },
      ],
      problems: [],
    });
  });

  it('without a header takes question, expected answer, expected sources in that order', () => {
    expect(
      questionsFromCsv('Can I return it?,Within 30 days.\nWhat is covered?').questions,
    ).toEqual([
      { question: 'Can I return it?', expected_answer: 'Within 30 days.' },
      { question: 'What is covered?' },
    ]);
  });

  it('names each bad row by the line it starts on, and keeps the good ones', () => {
    const long = 'x'.repeat(QUESTION_LIMITS.questionMax + 1);
    const set = questionsFromCsv(
      `question,expected_answer\n"A question\nover two lines",ok\n,an answer without its question\n${long},\nGood?,\n`,
    );
    expect(set.questions).toEqual([
      { question: 'A question\nover two lines', expected_answer: 'ok' },
      { question: 'Good?' },
    ]);
    expect(set.problems).toEqual([
      { line: 4, message: 'The question is empty.' },
      { line: 5, message: 'The question is 4,001 characters long (at most 4,000).' },
    ]);
  });

  it('says where the file stops being CSV', () => {
    expect(questionsFromCsv('question\n"open\n').problems).toEqual([
      { line: 2, message: 'The file is not valid CSV: a quote opened on line 2 is never closed.' },
    ]);
  });

  it('checks the expected sources against the limits', () => {
    const many = Array.from({ length: 21 }, (_, n) => `doc ${n}`).join('|');
    expect(questionsFromCsv(`question,expected_sources\nQ?,${many}`).problems).toEqual([
      { line: 2, message: '21 expected sources (at most 20).' },
    ]);
    expect(splitSources('a\n b |c||')).toEqual(['a', 'b', 'c']);
  });
});

describe('questions from pasted text', () => {
  it('takes one question a line, skipping blank lines; a tab starts the expected answer', () => {
    expect(
      questionsFromText('How long?\n\n  Which Wi-Fi?  \r\nCan I return it?\tWithin 30 days.'),
    ).toEqual({
      questions: [
        { question: 'How long?' },
        { question: 'Which Wi-Fi?' },
        { question: 'Can I return it?', expected_answer: 'Within 30 days.' },
      ],
      problems: [],
    });
  });

  it('names a line whose question is empty or too long', () => {
    const long = 'y'.repeat(4_001);
    expect(questionsFromText(`\tonly an answer\nfine?\n${long}`).problems).toEqual([
      { line: 1, message: 'The question is empty.' },
      { line: 3, message: 'The question is 4,001 characters long (at most 4,000).' },
    ]);
  });

  it('says when a set is empty or over the 500 questions of a run (P139)', () => {
    expect(setProblem(0)).toBe('There is no question to ask yet.');
    expect(setProblem(500)).toBeNull();
    expect(setProblem(501)).toBe(
      '501 questions: a run holds at most 500. Split them into several runs.',
    );
  });
});

describe('the evaluations addresses', () => {
  it('maps paths to pages', () => {
    expect(pageAt('/evaluations')).toEqual({ kind: 'list' });
    expect(pageAt('/evaluations/new')).toEqual({ kind: 'new' });
    expect(pageAt('/evaluations/compare')).toEqual({ kind: 'compare' });
    expect(pageAt('/evaluations/eval_01m866ppy1drc0wzkkx93pgznf')).toEqual({
      kind: 'run',
      id: 'eval_01m866ppy1drc0wzkkx93pgznf',
    });
    expect(pageAt('/evaluations/agt_1')).toEqual({ kind: 'missing' });
    expect(pageAt('/evaluations/new/x')).toEqual({ kind: 'missing' });
  });

  it('keeps the agent filter and the page, and the compared runs', () => {
    expect(listQueryOf({ agent_id: 'agt_1', page: '3' })).toEqual({ agentId: 'agt_1', page: 3 });
    expect(listQueryOf({ agent_id: 'x', page: '-1' })).toEqual({ agentId: null, page: 1 });
    expect(listHref({ agentId: 'agt_1', page: 2 })).toBe('/evaluations?agent_id=agt_1&page=2');
    expect(listHref({ agentId: null, page: 1 })).toBe('/evaluations');
    expect(compareHref('agt_1', 'eval_a', null)).toBe(
      '/evaluations/compare?agent_id=agt_1&a=eval_a',
    );
  });
});

describe('a run in words', () => {
  it('says how far it is', () => {
    expect(progressSentence({ status: 'running', completed_count: 3, question_count: 20 })).toBe(
      '3 of 20 questions',
    );
    expect(progressSentence({ status: 'queued', completed_count: 0, question_count: 1 })).toBe(
      'Waiting to start: 0 of 1 question',
    );
  });

  it('is read again soon while it moves, less often while it does not (at most every 5 s)', () => {
    expect(nextRunPoll(null, false)).toBe(1_000);
    expect(nextRunPoll(1_000, false)).toBe(1_500);
    expect(nextRunPoll(4_000, false)).toBe(5_000);
    expect(nextRunPoll(5_000, true)).toBe(1_000);
  });

  it('explains why a run failed', () => {
    expect(failureSentence({ code: 'daily_tokens', message: '' })).toMatch(
      /tokens for today ran out/,
    );
    expect(failureSentence({ code: 'internal_error', message: '' })).toMatch(/after several tries/);
    expect(failureSentence({ code: 'not_found', message: '' })).toMatch(/stopped before/);
  });
});

function totals(overrides: Partial<Totals>): Totals {
  return {
    questions: 3,
    answered: 3,
    failed: 0,
    no_answer: 0,
    retrieval_recall: 0.5,
    citation_precision: 0.5,
    citation_recall: 0.5,
    answer_support: 0.5,
    answer_f1: null,
    latency_ms: { p50: 100, p95: 200 },
    tokens_input: 10,
    tokens_output: 5,
    cost_usd: 0,
    ...overrides,
  };
}

function result(
  index: number,
  question: string,
  answer: string | null,
  metrics: Partial<NonNullable<NonNullable<EvaluationResult['result']>['metrics']>> | null,
): EvaluationResult {
  return {
    index,
    question,
    expected_answer: null,
    expected_sources: null,
    source_interaction_id: null,
    verdict: null,
    result: {
      status: answer === null ? 'failed' : 'answered',
      interaction_id: null,
      response: answer,
      sources: [],
      retrieved_documents: [],
      metrics:
        metrics === null
          ? null
          : {
              retrieval_recall: null,
              citation_precision: null,
              citation_recall: null,
              answer_support: null,
              answer_sentences: 1,
              supported_sentences: 1,
              answer_f1: null,
              no_answer: false,
              ...metrics,
            },
      latency_ms: 10,
      tokens_input: 1,
      tokens_output: 1,
      cost_usd: 0,
      billed_to: null,
      error: answer === null ? { code: 'agent_disabled', message: 'The agent is disabled' } : null,
      answered_at: '2026-11-27T10:00:00.000Z',
    },
  };
}

describe('comparing two runs', () => {
  it('reads each total with its direction: recall up is better, latency up is worse', () => {
    const rows = totalRows(
      totals({}),
      totals({ answer_support: 0.75, latency_ms: { p50: 150, p95: 200 }, tokens_input: 20 }),
    );
    const byLabel = new Map(rows.map((row) => [row.label, changeOf(row.a, row.b, row.better)]));
    expect(byLabel.get('Answer support')).toBe('better');
    expect(byLabel.get('Pass rate')).toBe('same'); // neither run has one: scored before verdicts
    const passing = totalRows(totals({ pass_rate: 0.5 }), totals({ pass_rate: 1 }));
    const pass = passing.find((row) => row.label === 'Pass rate');
    expect(pass && changeOf(pass.a, pass.b, pass.better)).toBe('better');
    expect(byLabel.get('Latency p50')).toBe('worse');
    expect(byLabel.get('Latency p95')).toBe('same');
    expect(byLabel.get('Tokens')).toBe('changed');
    expect(byLabel.get('Answer F1')).toBe('same');
    expect(byLabel.get('Answered')).toBe('same');
    expect(changeOf(null, 0.5, 'higher')).toBe('not-comparable');
    const bigger = totalRows(totals({}), totals({ questions: 4, answered: 4 }));
    const answered = bigger.find((row) => row.label === 'Answered');
    expect(answered && changeOf(answered.a, answered.b, answered.better)).toBe('changed');
    const fewerFailed = totalRows(totals({ answered: 2, failed: 1 }), totals({}));
    const failed = fewerFailed.find((row) => row.label === 'Failed');
    expect(failed && changeOf(failed.a, failed.b, failed.better)).toBe('better');
  });

  it('pairs questions by their text, nth copy with nth copy, and says what moved', () => {
    const a = [
      result(0, 'How long is the warranty?', 'Two years.', { answer_support: 1 }),
      result(1, 'Which Wi-Fi?', 'Any.', { answer_support: 1, citation_recall: 1 }),
      result(2, 'Same?', 'Yes.', { answer_support: 1 }),
      result(3, 'Same?', 'Yes.', { answer_support: 1 }),
      result(4, 'Only in the first?', 'Yes.', {}),
    ];
    const b = [
      result(0, 'which  wi-fi?', '2.4 GHz only.', { answer_support: 1, citation_recall: 0.5 }),
      result(1, 'How long is the warranty?', null, null),
      result(2, 'Same?', 'Yes.', { answer_support: 1 }),
      result(3, 'Same?', 'Yes, still.', { answer_support: 1 }),
      result(4, 'New one?', 'Yes.', {}),
    ];
    const pairs = pairQuestions(a, b);
    expect(pairs.map((pair) => [pair.question, pair.verdict])).toEqual([
      ['How long is the warranty?', 'worse'],
      ['Which Wi-Fi?', 'worse'],
      ['Same?', 'same'],
      ['Same?', 'changed'],
      ['Only in the first?', 'not-comparable'],
      ['New one?', 'not-comparable'],
    ]);
    expect(pairs[0]?.changes).toEqual([
      { label: 'Answered', change: 'worse' },
      { label: 'Answer support', change: 'not-comparable' },
    ]);
    expect(pairs[1]?.changes).toEqual([{ label: 'Citation recall', change: 'worse' }]);
    expect(pairs[1]?.answerChanged).toBe(true);
    expect(pairs[3]?.answerChanged).toBe(true);
    expect(pairsSummary(pairs)).toBe(
      '6 questions: 2 worse, 1 changed, 1 the same, 2 in one run only.',
    );
  });

  it('counts finding an answer where the first run had none as better', () => {
    const pairs = pairQuestions(
      [result(0, 'Q?', "I couldn't find it.", { no_answer: true })],
      [result(0, 'Q?', 'Here.', { no_answer: false, answer_support: 1 })],
    );
    expect(pairs[0]?.changes).toEqual([
      { label: 'Found an answer', change: 'better' },
      { label: 'Answer support', change: 'not-comparable' },
    ]);
    expect(pairs[0]?.verdict).toBe('better');
  });
});
