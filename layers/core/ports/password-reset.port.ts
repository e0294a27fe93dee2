/** A password reset waiting to be used, found by its token's hash. */
export interface PasswordResetRecord {
  readonly tokenHash: string;
  readonly orgId: string;
  readonly userId: string;
  /** Epoch ms it was issued: a reset issued before the user's sessions were ended dies with them. */
  readonly issuedAt: number;
  /** Epoch ms after which it no longer works. */
  readonly expiresAt: number;
  /** `passwordFingerprint` of the password it replaces (domain/password-reset.ts). */
  readonly passwordFingerprint: string;
}

/** Password resets issued and not yet used: only tokens' hashes are stored. */
export interface PasswordResetRepository {
  put(record: PasswordResetRecord): Promise<void>;
  find(tokenHash: string): Promise<PasswordResetRecord | null>;
  /** Removes it, atomically: true for the one caller that did (single use). */
  consume(tokenHash: string): Promise<boolean>;
}
