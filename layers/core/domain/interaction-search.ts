import { isNoAnswer } from './no-answer';

/** The longest text the interactions list searches for. */
export const INTERACTION_SEARCH_MAX = 200;

/** What the interactions list narrows to besides agent, dates and feedback. */
export interface InteractionSearch {
  /** Words to find in the question or the answer, ignoring case. */
  readonly text?: string;
  /** `false`: only answers that said they could not answer; `true`: only the others. */
  readonly answered?: boolean;
}

/** Text as it is compared: compatibility forms folded (`ﬁ` is `fi`), lower case. */
function folded(text: string): string {
  return text.normalize('NFKC').toLocaleLowerCase('en');
}

/**
 * Whether an interaction is one the search asks for. The text is found as
 * typed (one phrase, not separate words) in the question or the answer. An
 * answer is "not answered" when it is the agent's honest non-answer ("I
 * couldn't find anything…") or the one it gives with nothing indexed: the
 * same test evaluations use, so both screens agree.
 */
export function matchesInteractionSearch(
  interaction: { readonly query: string; readonly response: string },
  search: InteractionSearch,
  noSourcesAnswer: string,
): boolean {
  if (search.answered !== undefined) {
    const answered = !isNoAnswer(interaction.response, noSourcesAnswer);
    if (answered !== search.answered) return false;
  }
  if (search.text !== undefined) {
    const wanted = folded(search.text.trim());
    if (
      wanted.length > 0 &&
      !folded(interaction.query).includes(wanted) &&
      !folded(interaction.response).includes(wanted)
    )
      return false;
  }
  return true;
}

/** Whether a search narrows anything. */
export function isSearching(search: InteractionSearch): boolean {
  return search.answered !== undefined || (search.text ?? '').trim().length > 0;
}
