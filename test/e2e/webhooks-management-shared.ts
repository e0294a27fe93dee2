import { expectNestedError, fieldPaths } from '../support/error-shapes';
import type { api } from '../support/http-client';

/** What the webhook-management suites share: the paths, the shapes of a webhook, and a refused URL. */
export const V1 = '/api/v1/webhooks';
export const LEGACY = '/api/webhooks';

export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** Standard Webhooks' format: `whsec_` + base64 of 32 random bytes. */
export const SECRET = /^whsec_[A-Za-z0-9+/]{43}=$/;
export const WEBHOOK_FIELDS = [
  'created_at',
  'description',
  'events',
  'id',
  'owner',
  'secret_last4',
  'status',
  'updated_at',
  'url',
];

/** D30 as a request sees it: a refused URL is `400 invalid_request` naming `url`. */
export function expectUrlRefused(response: Awaited<ReturnType<typeof api>>, reason: RegExp): void {
  const error = expectNestedError(response, 400, 'invalid_request');
  expect(fieldPaths(error)).toEqual(['url']);
  expect(error.details.fields[0].message).toMatch(reason);
}
