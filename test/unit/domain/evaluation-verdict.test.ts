import type { QuestionResult } from '../../../layers/core/domain/evaluation';
import { judgeQuestion, passRate } from '../../../layers/core/domain/evaluation-verdict';
import { NO_ANSWER_TEXT, NO_SOURCES_ANSWER } from '../../../layers/core/domain/no-answer';

const WARRANTY = 'https://help.example/warranty';

function answered(
  response: string,
  cited: Array<{ url: string | null; title: string }> = [{ url: WARRANTY, title: 'Warranty' }],
): Pick<QuestionResult, 'status' | 'response' | 'sources'> {
  return {
    status: 'answered',
    response,
    sources: cited.map((source, index) => ({
      chunk_id: `chk_${index}`,
      document_title: source.title,
      document_url: source.url,
      similarity_score: 0.5,
    })),
  };
}
const expecting = (expected_answer: string | null, expected_sources: string[] | null = null) => ({
  expected_answer,
  expected_sources,
});
const judge = (
  question: ReturnType<typeof expecting>,
  result: Pick<QuestionResult, 'status' | 'response' | 'sources'> | null,
) => judgeQuestion(question, result, NO_SOURCES_ANSWER);

describe('judgeQuestion', () => {
  it('calls an answer right when it contains the expected answer and cites an expected source', () => {
    const verdict = judge(
      expecting('a two year warranty', [WARRANTY]),
      answered('Every widget carries a two year warranty [1].'),
    );

    expect(verdict).toEqual({
      outcome: 'right',
      checks: [
        {
          check: 'expected_answer',
          passed: true,
          reason: 'The answer contains the expected answer.',
        },
        {
          check: 'expected_sources',
          passed: true,
          reason: `It cites “${WARRANTY}”, an expected source.`,
        },
      ],
    });
  });

  it('accepts a reworded answer holding most of the key words', () => {
    // Key words: widget, carri(es), two, year, warranti → all five, in another order.
    const verdict = judge(
      expecting('Widgets carry a two year warranty.'),
      answered('The warranty on every widget lasts two year, and it carries over.'),
    );

    expect(verdict?.outcome).toBe('right');
    expect(verdict?.checks[0]?.reason).toBe(
      'The answer has 5 of the expected answer’s 5 key words.',
    );
  });

  it('calls a well-supported answer with the wrong figure wrong, naming the figure', () => {
    const verdict = judge(
      expecting('Every Acme widget carries a five year warranty.', [WARRANTY]),
      answered('Every Acme widget carries a two year warranty [1].'),
    );

    expect(verdict?.outcome).toBe('wrong');
    expect(verdict?.checks[0]).toEqual({
      check: 'expected_answer',
      passed: false,
      reason:
        'The answer lacks “five”, which the expected answer states (it has 6 of the expected answer’s 7 key words).',
    });
    expect(verdict?.checks[1]?.passed).toBe(true);
  });

  it('calls an answer missing the point wrong, naming what it misses', () => {
    const verdict = judge(
      expecting('Gift cards can be exchanged for store credit at any branch.'),
      answered('Gift cards never expire.'),
    );

    expect(verdict?.outcome).toBe('wrong');
    expect(verdict?.checks[0]?.reason).toBe(
      'The answer has only 2 of the expected answer’s 8 key words; missing “can”, “exchanged”, “store”, “credit”, “any” and 1 more.',
    );
  });

  it('calls an answer citing none of the expected sources wrong', () => {
    expect(
      judge(expecting(null, ['Returns policy']), answered('Thirty days [1].'))?.checks,
    ).toEqual([
      {
        check: 'expected_sources',
        passed: false,
        reason: 'It cites none of the expected sources (“Returns policy”).',
      },
    ]);
    expect(
      judge(expecting(null, ['Returns policy']), answered('Thirty days.', []))?.checks,
    ).toEqual([
      {
        check: 'expected_sources',
        passed: false,
        reason: 'It cites no source; expected “Returns policy”.',
      },
    ]);
  });

  it('calls giving up wrong where an answer was expected, and right where none was', () => {
    const gaveUp = answered(NO_ANSWER_TEXT, []);

    expect(judge(expecting('Ulaanbaatar'), gaveUp)).toEqual({
      outcome: 'wrong',
      checks: [
        {
          check: 'answered',
          passed: false,
          reason: 'The agent said it could not find the answer in its sources.',
        },
      ],
    });
    expect(judge(expecting(NO_ANSWER_TEXT), gaveUp)?.outcome).toBe('right');
    expect(judge(expecting(NO_ANSWER_TEXT), answered('Ulaanbaatar.'))?.outcome).toBe('wrong');
  });

  it('leaves a question without expectations unjudged, and a failed one without a verdict', () => {
    expect(judge(expecting(null), answered('Anything.'))).toEqual({
      outcome: 'unjudged',
      checks: [],
    });
    expect(judge(expecting('x', [WARRANTY]), null)).toBeNull();
    expect(judge(expecting('x'), { status: 'failed', response: null, sources: [] })).toBeNull();
  });
});

describe('passRate', () => {
  it('is right over judged, leaving out the unjudged and the failed', () => {
    expect(
      passRate([
        { outcome: 'right', checks: [] },
        { outcome: 'wrong', checks: [] },
        { outcome: 'right', checks: [] },
        { outcome: 'unjudged', checks: [] },
        null,
      ]),
    ).toEqual({ judged: 3, right: 2, pass_rate: 0.6667 });
    expect(passRate([null, { outcome: 'unjudged', checks: [] }])).toEqual({
      judged: 0,
      right: 0,
      pass_rate: null,
    });
  });
});
