import type { Route } from '../route';

/**
 * OpenAI-compatible chat completions: the `openai` function's rows of the
 * route table (layers/core/http/routes/route-table.ts). The agents are the
 * models; an OpenAI SDK pointed at `/api/v1/openai` with an API key finds
 * both paths where it expects them.
 */
export const OPENAI_ROUTES: readonly Route[] = [
  {
    method: 'GET',
    path: '/api/v1/openai/models',
    family: 'openai',
    operation: 'listModels',
    // The same key that asks must be able to list what it may ask.
    scope: 'Execute',
    role: 'readonly',
    api: 'v1',
    // One function serves the family and it streams (completions do); a list is one write.
    streaming: true,
  },
  {
    method: 'POST',
    path: '/api/v1/openai/chat/completions',
    family: 'openai',
    operation: 'chatCompletions',
    scope: 'Execute',
    role: 'readonly',
    api: 'v1',
    streaming: true,
    spendsTokens: true,
  },
];
