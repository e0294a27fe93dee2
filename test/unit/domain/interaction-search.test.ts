import {
  isSearching,
  matchesInteractionSearch,
} from '../../../layers/core/domain/interaction-search';
import { NO_ANSWER_TEXT, NO_SOURCES_ANSWER } from '../../../layers/core/domain/no-answer';

const asked = (query: string, response: string) => ({ query, response });

describe('matchesInteractionSearch', () => {
  it('finds the text as one phrase in the question or the answer, ignoring case and compatibility forms', () => {
    const interaction = asked('Where is the Lisbon office?', 'The ﬁrst floor of Rua Augusta 1.');

    expect(
      matchesInteractionSearch(interaction, { text: 'lisbon OFFICE' }, NO_SOURCES_ANSWER),
    ).toBe(true);
    expect(matchesInteractionSearch(interaction, { text: 'first floor' }, NO_SOURCES_ANSWER)).toBe(
      true,
    );
    expect(
      matchesInteractionSearch(interaction, { text: 'office lisbon' }, NO_SOURCES_ANSWER),
    ).toBe(false);
  });

  it('tells an answer that said it could not answer from the others', () => {
    const honest = asked('Q', `${NO_ANSWER_TEXT} I searched for: lisbon.`);
    const nothingIndexed = asked('Q', NO_SOURCES_ANSWER);
    const cutShort = asked('Q', "I couldn't find anything about…");
    const answered = asked('Q', 'The office is in Lisbon [1].');

    for (const interaction of [honest, nothingIndexed, cutShort]) {
      expect(matchesInteractionSearch(interaction, { answered: false }, NO_SOURCES_ANSWER)).toBe(
        true,
      );
    }
    expect(matchesInteractionSearch(answered, { answered: false }, NO_SOURCES_ANSWER)).toBe(false);
    expect(matchesInteractionSearch(answered, { answered: true }, NO_SOURCES_ANSWER)).toBe(true);
  });

  it('narrows nothing without text or an answered filter', () => {
    expect(isSearching({})).toBe(false);
    expect(isSearching({ text: '  ' })).toBe(false);
    expect(isSearching({ answered: true })).toBe(true);
  });
});
