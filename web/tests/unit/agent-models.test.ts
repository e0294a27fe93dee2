import { ApiError } from '../../src/api/api-error';
import { agentInput, askFailure } from '../../src/screens/agents/agents.state';
import { ANOTHER_MODEL, chosenModel, modelOptions } from '../../src/screens/agents/model-choices';

const offline = {
  model_key_id: null,
  label: 'This service (offline, no model provider)',
  provider: 'offline' as const,
  models: ['offline-extractive'],
  other_models: false,
};
const openAiKey = {
  model_key_id: 'mk_1',
  label: 'Team key',
  provider: 'openai' as const,
  models: ['gpt-4o-mini', 'gpt-4o'],
  other_models: true,
};

describe("the agent form's model options", () => {
  it('offers only what the choice serves, the agent’s own model selected', () => {
    expect(modelOptions(offline, 'offline-extractive')).toEqual([
      {
        value: 'offline-extractive',
        label: expect.stringMatching(/^offline-extractive/),
        selected: true,
      },
    ]);
  });

  it('keeps a stored model nothing serves, marked, rather than changing the agent silently', () => {
    expect(modelOptions(offline, 'gpt-4o-mini').map((option) => option.label)).toEqual([
      expect.stringMatching(/^offline-extractive/),
      'gpt-4o-mini (cannot answer here)',
    ]);
  });

  it('lets a name be typed where the provider decides, selected for an unlisted stored model', () => {
    const options = modelOptions(openAiKey, 'gpt-5-preview');

    expect(options.at(-1)).toEqual({
      value: ANOTHER_MODEL,
      label: 'Another model…',
      selected: true,
    });
    expect(options.filter((option) => option.selected)).toHaveLength(1);
  });

  it('sends the typed name when "Another model" is chosen', () => {
    const form = new FormData();
    form.append('model', ANOTHER_MODEL);
    form.append('model_name', '  gpt-5-preview ');

    expect(chosenModel(form)).toBe('gpt-5-preview');
    expect(agentInput(form, false).model).toBe('gpt-5-preview');
  });
});

describe('an answer that cannot be produced, in words', () => {
  const refusal = (status: number, code: string, message: string, details = {}) =>
    ApiError.from(
      { error: { code, message, details }, request_id: 'req_1' },
      {
        status,
        headers: new Headers(),
      },
    );

  it('says the agent’s model cannot answer here, not the operator’s settings', () => {
    const failure = askFailure(
      refusal(400, 'invalid_request', 'The agent\'s model "gpt-4o-mini" needs OPENAI_API_KEY', {
        fields: [{ path: 'model', message: 'no provider configured for this model' }],
      }),
    ) as ApiError;

    expect(failure.message).toMatch(/this agent's model cannot answer on this service/);
    expect(failure.message).not.toMatch(/OPENAI_API_KEY/);
    expect(failure.requestId).toBe('req_1');
  });

  it('says a provider refused, with its reason, and who can fix it', () => {
    const failure = askFailure(
      refusal(424, 'model_provider_refused', 'Incorrect API key provided.'),
    ) as ApiError;

    expect(failure.message).toBe(
      "No answer: the model provider refused to answer with this agent's model or model key (Incorrect API key provided). Someone who may edit agents can check its model and model key.",
    );
  });

  it('says a model that is not answering for now is worth asking again', () => {
    expect(
      (askFailure(refusal(503, 'service_unavailable', 'Bedrock throttled')) as ApiError).message,
    ).toMatch(/Ask again in a moment/);
  });
});
