import { NO_ANSWER_TEXT } from '../../layers/core/domain/no-answer';
import { NO_SOURCES_ANSWER } from '../../layers/core/use-cases/query/answer-query';
import {
  comparableText,
  isAbstention,
  matchedPhrase,
  percentile,
  phrasesNotInDocuments,
  type ScoredAnswer,
  summarize,
} from './answer-scoring';

describe('answers eval scoring', () => {
  describe('key-phrase matching', () => {
    it('finds a phrase whatever the case and the spacing', () => {
      expect(
        matchedPhrase('Use  ServerAliveInterval\nin your config [1].', ['serveraliveinterval']),
      ).toBe('serveraliveinterval');
      expect(matchedPhrase('Run git reset\n  --soft HEAD^ [1]', ['git reset --soft'])).toBe(
        'git reset --soft',
      );
    });

    it('reads through citation markers, code marks, bold and backslash escapes', () => {
      const answer = 'Pass `--location` [1][2], or **-L** [1, 3]: `-D [bind\\_address:]port`';
      expect(matchedPhrase(answer, ['--location'])).toBe('--location');
      expect(matchedPhrase(answer, ['-L'])).toBe('-L');
      expect(matchedPhrase(answer, ['-D [bind_address:]port'])).toBe('-D [bind_address:]port');
      expect(comparableText('A [12] B')).toBe('a b');
    });

    it('returns the first alternative the answer contains, and nothing when none is there', () => {
      expect(matchedPhrase('use --jobs=4', ['-j 4', '--jobs'])).toBe('--jobs');
      expect(
        matchedPhrase('Print the commands that would be executed.', ['--dry-run']),
      ).toBeUndefined();
      expect(matchedPhrase('anything', [])).toBeUndefined();
      expect(matchedPhrase('anything', ['  '])).toBeUndefined();
    });

    it('reads HTML entities as the characters a Markdown source escaped', () => {
      expect(matchedPhrase('git stash branch &lt;branchname&gt;', ['branch <branchname>'])).toBe(
        'branch <branchname>',
      );
    });
  });

  describe('abstention', () => {
    it('recognizes the two non-answers of the service', () => {
      expect(isAbstention(NO_ANSWER_TEXT)).toBe(true);
      expect(isAbstention(`  ${NO_SOURCES_ANSWER}`)).toBe(true);
      expect(isAbstention(`${NO_ANSWER_TEXT}\nI searched the manuals.`)).toBe(true);
    });

    it('does not take an answer that merely mentions not finding something for one', () => {
      expect(isAbstention('If curl cannot find the host, it exits with 6 [1].')).toBe(false);
      expect(isAbstention(`Quoting: ${NO_ANSWER_TEXT}`)).toBe(false);
    });
  });

  describe('summaries', () => {
    it('takes nearest-rank percentiles', () => {
      expect(percentile([30, 10, 20, 40], 50)).toBe(20);
      expect(percentile([30, 10, 20, 40], 95)).toBe(40);
      expect(percentile([7], 50)).toBe(7);
      expect(percentile([], 50)).toBeNaN();
    });

    it('counts right, cited, abstained and search hits over the answers given', () => {
      const answer = (overrides: Partial<ScoredAnswer>): ScoredAnswer => ({
        id: 'q',
        question: 'q',
        expected_document: 'curl.1.md',
        category: 'name',
        split: 'tune',
        phrases: ['--location'],
        right: false,
        matched_phrase: null,
        cited: false,
        abstained: false,
        response: '',
        cited_documents: [],
        latency_ms: 10,
        phrase_in_sources: false,
        phrase_in_search: false,
        hit_rank: null,
        ...overrides,
      });

      const summary = summarize([
        answer({ right: true, cited: true, hit_rank: 1, latency_ms: 30 }),
        answer({ cited: true, hit_rank: 2, latency_ms: 10 }),
        answer({ abstained: true, hit_rank: 6, latency_ms: 20 }),
      ]);

      expect(summary).toEqual({
        asked: 3,
        right: 1,
        cited: 2,
        abstained: 1,
        hit1: 1,
        hit5: 2,
        p50: 20,
        p95: 30,
      });
    });
  });
});

describe('answers eval question checks', () => {
  const document = (name: string, text: string) => ({
    spec: { name, path: `/nowhere/${name}`, kind: 'markdown' as const, split: 'tune' as const },
    text,
  });
  const question = (id: string, name: string | null, phrases: string[]) => ({
    id,
    text: id,
    document: name,
    phrases,
    category: 'name' as const,
    split: 'tune' as const,
  });

  it('names every key phrase its document does not contain, reading through Markdown marks', () => {
    const documents = [document('curl.1.md', '`-L, --location`\n\nFollows  redirects.')];
    const problems = phrasesNotInDocuments(
      [
        question('ok', 'curl.1.md', ['-L, --location', 'follows redirects']),
        question('bad', 'curl.1.md', ['--location', '--follow']),
        question('unanswerable', null, []),
      ],
      documents,
    );

    expect(problems).toEqual(['bad: "--follow" is not in curl.1.md']);
  });
});
