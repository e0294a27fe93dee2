import * as z from 'zod/mini';
import { createAgentBody, listAgentsQuery } from '../../../functions/agents/agent.schema';
import { listInteractionsQuery } from '../../../functions/interactions/interaction.schema';
import { createUserBody } from '../../../functions/users/user.schema';
import { parseCloudConfig } from '../../../layers/core/config';
import { parseDataSourceConfig } from '../../../layers/core/domain/data-source-config';
import { invalidRequest } from '../../../layers/core/http/validation';

/** What a client reads in the 400 for `value` (D4): the message and `details`. */
function refusal(where: 'body' | 'query', schema: z.core.$ZodType, value: unknown) {
  const parsed = z.safeParse(schema, value);
  if (parsed.success) throw new Error('expected the value to be refused');
  const error = invalidRequest(where, parsed.error.issues);
  return { message: error.message, details: error.details };
}

/**
 * P72: zod/mini carries no locale; layers/core/zod-english.ts sets English,
 * so clients read the messages classic zod gave (these strings are classic
 * zod 4.6's, taken before the switch), custom ones included.
 */
describe('Validation messages in English (P72)', () => {
  it("reports zod's own messages for bounds, types and options, and lists unknown fields apart (D4)", () => {
    expect(
      refusal('body', createAgentBody, {
        name: 'x'.repeat(201),
        data_source_ids: 'ds',
        temperature: 3,
        max_tokens: 1.5,
        rag_strategy: 'other',
        colour: 'red',
      }),
    ).toEqual({
      message:
        'Invalid request body: unknown field(s): colour; name: Too big: expected string to have <=200 characters; data_source_ids: Invalid input: expected array, received string; rag_strategy: Invalid option: expected one of "similarity"|"hybrid"|"mmr"|"rerank"; temperature: Too big: expected number to be <=2; max_tokens: Invalid input: expected int, received number',
      details: {
        fields: [
          { path: 'name', message: 'Too big: expected string to have <=200 characters' },
          { path: 'data_source_ids', message: 'Invalid input: expected array, received string' },
          {
            path: 'rag_strategy',
            message: 'Invalid option: expected one of "similarity"|"hybrid"|"mmr"|"rerank"',
          },
          { path: 'temperature', message: 'Too big: expected number to be <=2' },
          { path: 'max_tokens', message: 'Invalid input: expected int, received number' },
        ],
        unknown_fields: ['colour'],
      },
    });
  });

  it('keeps the custom messages of bodies and query strings', () => {
    expect(
      refusal('body', createUserBody, { email: 'not an email', name: '  ', role: 'owner' }),
    ).toEqual({
      message:
        'Invalid request body: email: must be an email address; name: must not be empty; role: Invalid option: expected one of "readonly"|"train"|"configure"|"admin"',
      details: {
        fields: [
          { path: 'email', message: 'must be an email address' },
          { path: 'name', message: 'must not be empty' },
          {
            path: 'role',
            message: 'Invalid option: expected one of "readonly"|"train"|"configure"|"admin"',
          },
        ],
      },
    });
    expect(refusal('query', listAgentsQuery, { limit: '500', offset: '1.5' })).toEqual({
      message: 'Invalid query string: limit: must be at most 200; offset: must be a whole number',
      details: {
        fields: [
          { path: 'limit', message: 'must be at most 200' },
          { path: 'offset', message: 'must be a whole number' },
        ],
      },
    });
    expect(
      refusal('query', listInteractionsQuery, { start_date: '2026-02-30', feedback: 'maybe' }),
    ).toEqual({
      message:
        'Invalid query string: start_date: is not a real date; feedback: Invalid option: expected one of "positive"|"negative"|"null"',
      details: {
        fields: [
          { path: 'start_date', message: 'is not a real date' },
          {
            path: 'feedback',
            message: 'Invalid option: expected one of "positive"|"negative"|"null"',
          },
        ],
      },
    });
  });

  it('words data source configuration issues (D26) and function configuration errors the same way', () => {
    expect(
      parseDataSourceConfig('confluence', { base_url: 'http://example.com', space_keys: [] }),
    ).toEqual({
      ok: false,
      issues: [
        { path: 'config.base_url', message: 'must be an https URL' },
        { path: 'config.space_keys', message: 'Too small: expected array to have >=1 items' },
      ],
      unknownFields: [],
    });
    expect(() => parseCloudConfig('table', { TABLE_NAME: 'x', SVC_ENVIRONMENT: 'prod' })).toThrow(
      'Invalid function configuration (table): TABLE_NAME: Too small: expected string to have >=3 characters; SVC_ENVIRONMENT: Invalid option: expected one of "live"|"test"; AWS_REGION: Invalid input: expected string, received undefined',
    );
  });
});
