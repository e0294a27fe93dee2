/**
 * What an agent says when its sources hold nothing about the question
 * (issue 3: it answers honestly that it has no sources rather than inventing
 * one). Both answerers use this exact text, so the service, analytics and
 * tests can recognize a non-answer whichever model produced it.
 */
export const NO_ANSWER_TEXT = "I couldn't find anything about that in this agent's sources.";
