import type { Route } from '../route';

/** Interactions and feedback: the `interactions` function's rows of the route table (layers/core/http/routes/route-table.ts). */
export const INTERACTIONS_ROUTES: readonly Route[] = [
  // Interactions and feedback (Read to list, Execute for feedback)
  {
    method: 'GET',
    path: '/api/v1/interactions',
    family: 'interactions',
    operation: 'listInteractions',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'POST',
    path: '/api/v1/interactions/{id}/feedback',
    family: 'interactions',
    operation: 'giveFeedback',
    scope: 'Execute',
    role: 'train',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/interactions',
    family: 'interactions',
    operation: 'listInteractions',
    scope: 'Read',
    role: 'readonly',
    api: 'legacy',
    successor: '/api/v1/interactions',
  },
  {
    method: 'POST',
    path: '/api/interactions/feedback',
    family: 'interactions',
    operation: 'giveFeedbackLegacy',
    scope: 'Execute',
    role: 'train',
    api: 'legacy',
    successor: '/api/v1/interactions/{id}/feedback',
  },
  // The caller's own conversations (the console's playground): sessions of what they asked.
  {
    method: 'GET',
    path: '/api/v1/conversations',
    family: 'interactions',
    operation: 'listConversations',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
  {
    method: 'GET',
    path: '/api/v1/conversations/{id}',
    family: 'interactions',
    operation: 'getConversation',
    scope: 'Read',
    role: 'readonly',
    api: 'v1',
  },
];
