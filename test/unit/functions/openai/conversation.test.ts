import { conversationOf } from '../../../../functions/openai/conversation';
import { InvalidRequestError } from '../../../../layers/core/domain/errors';
import { INTERACTION_LIMITS } from '../../../../layers/core/domain/interaction';

describe('An OpenAI conversation as an agent question (conversationOf)', () => {
  it('asks the last user message, with each earlier question and its answer as a turn', () => {
    const conversation = conversationOf([
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'How long is the warranty?' },
      { role: 'assistant', content: 'Two years [1].' },
      { role: 'user', content: 'Does it cover drops?' },
    ]);

    expect(conversation).toEqual({
      question: 'Does it cover drops?',
      history: [{ question: 'How long is the warranty?', answer: 'Two years [1].' }],
    });
  });

  it('reads text parts, and keeps a question left unanswered as a turn without an answer', () => {
    const conversation = conversationOf([
      { role: 'user', content: [{ type: 'text', text: 'First?' }] },
      { role: 'user', content: 'Second?' },
      { role: 'tool', content: 'ignored' },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Third,' },
          { type: 'image_url' },
          { type: 'text', text: 'in parts?' },
        ],
      },
    ]);

    expect(conversation).toEqual({
      question: 'Third,\nin parts?',
      history: [
        { question: 'First?', answer: '' },
        { question: 'Second?', answer: '' },
      ],
    });
  });

  it('keeps the last turns only, as a session does', () => {
    const messages = Array.from({ length: 15 }, (_, index) => [
      { role: 'user' as const, content: `Question ${index}?` },
      { role: 'assistant' as const, content: `Answer ${index}.` },
    ]).flat();

    const { history } = conversationOf([...messages, { role: 'user', content: 'Last?' }]);

    expect(history).toHaveLength(INTERACTION_LIMITS.historyTurns);
    expect(history.at(-1)).toEqual({ question: 'Question 14?', answer: 'Answer 14.' });
  });

  it.each([
    ['ends with the assistant', [{ role: 'assistant' as const, content: 'Hello.' }], /role user/],
    ['ends with an empty question', [{ role: 'user' as const, content: '  ' }], /question/],
    [
      'asks more than a query may',
      [{ role: 'user' as const, content: 'x'.repeat(INTERACTION_LIMITS.queryMax + 1) }],
      /at most/,
    ],
  ])('refuses a conversation that %s, naming the message', (_case, messages, reason) => {
    const refusal = (() => {
      try {
        conversationOf(messages);
        return undefined;
      } catch (error) {
        return error;
      }
    })();

    expect(refusal).toBeInstanceOf(InvalidRequestError);
    expect((refusal as InvalidRequestError).message).toMatch(reason);
    expect((refusal as InvalidRequestError).details).toEqual({
      fields: [{ path: `messages.${messages.length - 1}`, message: expect.any(String) }],
    });
  });
});
