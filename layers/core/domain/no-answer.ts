/**
 * What an agent says when its sources hold nothing about the question
 * (issue 3: it answers honestly that it has no sources rather than inventing
 * one). Both answerers use this exact text, so the service, analytics and
 * tests can recognize a non-answer whichever model produced it.
 */
export const NO_ANSWER_TEXT = "I couldn't find anything about that in this agent's sources.";

/**
 * What an agent says when its data sources have nothing indexed (issue 3:
 * never an invented source). Kept here beside the other non-answer, so the
 * lists that tell answered from not answered need not load the query path.
 */
export const NO_SOURCES_ANSWER =
  "This agent has no indexed sources yet, so I can't answer from them. Sync its data sources and ask again.";

/**
 * The answerer's honest non-answer (possibly cut short by max_tokens, or
 * followed by what was searched), or the no-sources answer: an answer that
 * says it could not answer.
 */
export function isNoAnswer(response: string, noSourcesAnswer: string): boolean {
  const text = response.trim().replace(/…$/, '');
  if (text.length === 0) return false;
  if (text.startsWith(NO_ANSWER_TEXT)) return true;
  return NO_ANSWER_TEXT.startsWith(text) || noSourcesAnswer.startsWith(text);
}
