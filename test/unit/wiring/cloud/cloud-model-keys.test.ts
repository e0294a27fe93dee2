import { cloudModelKeyAnswerers } from '../../../../layers/core/wiring/cloud/cloud-model-keys';

/** The answerers for organizations' own keys, loaded at the first such answer rather than at init. */
describe('Function: cloudModelKeyAnswerers', () => {
  it("builds each provider's answerer from one factory, loaded once", async () => {
    // Prepare
    const answererFor = cloudModelKeyAnswerers();

    // Act
    const [openai, anthropic, custom] = await Promise.all([
      answererFor({ provider: 'openai', apiKey: 'sk-test', endpoint: null }),
      answererFor({ provider: 'anthropic', apiKey: 'sk-ant-test', endpoint: null }),
      answererFor({ provider: 'custom', apiKey: 'k', endpoint: 'https://llm.example.com/v1/' }),
    ]);

    // Assess
    expect(openai.constructor.name).toBe('OpenAiAnswerer');
    expect(anthropic.constructor.name).toBe('AnthropicAnswerer');
    expect(custom.constructor.name).toBe('OpenAiAnswerer');
  });
});
