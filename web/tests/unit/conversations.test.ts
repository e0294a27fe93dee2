import type { components } from '../../src/api/schema';
import { turnOfInteraction } from '../../src/screens/agents/conversations-api';

type Interaction = components['schemas']['Interaction'];

const interaction = (overrides: Partial<Interaction> = {}): Interaction => ({
  id: 'int_1',
  agent_id: 'agt_1',
  session_id: 'sess_1',
  query: 'How long is the warranty?',
  response: 'Two years [1].',
  sources: [
    {
      chunk_id: 'chk_1',
      document_title: 'warranty.md',
      document_url: null,
      rank: 1,
      score: 0.5,
      similarity_score: 0.8,
      chunk_text: 'Every kettle carries a warranty of two years.',
      quoted_ranges: [{ start: 0, end: 10 }],
    },
  ],
  cited_sources: 1,
  groundedness: null,
  feedback: null,
  feedback_comment: null,
  latency_ms: 40,
  tokens_input: 10,
  tokens_output: 5,
  cost_usd: 0,
  rag_strategy: 'hybrid',
  model: 'offline-extractive',
  key_id: null,
  created_at: '2027-01-01T00:00:00.000Z',
  ...overrides,
});

describe('A reopened conversation (conversations-api.ts)', () => {
  it('shows a recorded answer as a finished turn with its sources and facts', () => {
    const turn = turnOfInteraction(7, interaction());

    expect(turn).toMatchObject({
      key: 7,
      question: 'How long is the warranty?',
      status: 'done',
      text: 'Two years [1].',
      error: null,
      feedback: null,
      metadata: {
        interaction_id: 'int_1',
        session_id: 'sess_1',
        latency_ms: 40,
        groundedness: null,
        model: 'offline-extractive',
      },
    });
    expect(turn.sources[0]?.chunk_text).toBe('Every kettle carries a warranty of two years.');
  });

  it('keeps the rating and comment already given', () => {
    const turn = turnOfInteraction(
      1,
      interaction({ feedback: 'negative', feedback_comment: 'Too vague' }),
    );

    expect(turn.feedback).toEqual({ feedback: 'negative', comment: 'Too vague' });
  });
});
