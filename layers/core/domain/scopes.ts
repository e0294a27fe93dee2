/** The four API key scopes of the spec's Authentication part. */
export const SCOPES = ['Read', 'Write', 'Execute', 'Admin'] as const;
export type Scope = (typeof SCOPES)[number];

/** Admin implies every other scope. */
export function grantsScope(held: readonly Scope[], required: Scope): boolean {
  return held.includes(required) || held.includes('Admin');
}

/** Spec, Limits: per key and scope, requests per minute and burst allowance. */
export const SCOPE_RATE_LIMITS: Record<Scope, { perMinute: number; burst: number }> = {
  Execute: { perMinute: 100, burst: 120 },
  Write: { perMinute: 10, burst: 15 },
  Read: { perMinute: 200, burst: 250 },
  Admin: { perMinute: 50, burst: 60 },
};
