/**
 * Where an invitation is accepted (its v1 path, a row of
 * layers/core/http/routes/auth.ts). Here rather than in the route table so the `users`
 * function can name it without bundling another family's rows.
 */
export const INVITATION_ACCEPT_PATH = '/api/v1/auth/invitations/accept';
