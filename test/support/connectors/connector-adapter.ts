import type { TestClock } from '../test-clock';

/** A parsed answer of `POST /api/v1/query`, as the scenarios read it. */
export type Answer = Record<string, any>;

/** A question to ask the agent over the source, and what its answer must show. */
export interface Question {
  readonly question: string;
  expectAnswer(answer: Answer): void;
}

/**
 * What the shared connector scenarios need to know about one provider: how
 * to start and seed its loopback stand-in, what its sign-in looks like, how
 * to change, delete, throttle, break and revoke things there as the
 * provider would, and the few facts that differ (document counts, error
 * words, links cited). The scenarios (`test/e2e/connectors-scenarios.test.ts`)
 * hold every expectation that is the same for all four.
 *
 * `mark` arguments are `requestCount()` taken before the step: the hooks look
 * at what the stand-in saw from there on.
 */
export interface ConnectorAdapter {
  /** As people name the provider: "Google Drive". */
  readonly name: string;
  /** The data source `type`. */
  readonly type: string;
  /** The data source type in webhook events ("GOOGLE_DRIVE"). */
  readonly eventType: string;
  /** A valid `config` for a service that has no stand-in (nothing is read). */
  readonly offlineConfig: Record<string, unknown>;
  /** What the 409 says when the provider's app credentials are not set. */
  readonly notConfigured: RegExp;

  /** Starts the stand-in on the suite's clock; returns the settings pointing the service at it. */
  start(clock: TestClock): Promise<Record<string, string>>;
  /** Puts the suite's content at the provider. */
  seed(): Promise<void>;
  close(): Promise<void>;
  /** A `config` reading the seeded content. */
  config(): Record<string, unknown>;
  requestCount(): number;
  /** Every token the stand-in ever issued, to look for in logs and responses. */
  issuedTokens(): string[];

  readonly signIn: {
    /** The provider's authorization endpoint, without the query. */
    authorizeEndpoint(): string;
    /** The query the service must send there (matched, not equal). */
    authorizeParams(serviceUrl: string): Record<string, unknown>;
    /** The last authorization-code exchange the stand-in saw: its parameters and headers. */
    lastCodeExchange(): Record<string, unknown>;
    /** What that exchange must carry (matched, not equal). */
    expectedCodeExchange(): Record<string, unknown>;
    refuseConsent(refuse: boolean): void;
  };

  /** The first sync of `config()`. */
  readonly firstSync: {
    readonly documents: number;
    /** `null`, or what the status reports of the content it could not read. */
    readonly error: RegExp | null;
    readonly questions: readonly Question[];
    /** What it read, and how (exports, downloads, joins). */
    expectReads(mark: number): void;
  };

  /** Edits and renames at the provider, read by the next sync without a new full pass. */
  readonly change: {
    apply(): Promise<void> | void;
    /** How many documents it changes (same ids, new content). */
    readonly documents: number;
    /** That the sync asked only for what changed. */
    expectReads(mark: number): void;
    readonly questions: readonly Question[];
  };

  /** Deletions at the provider, each leaving the index on the next sync. */
  readonly deletion: {
    apply(): void;
    readonly documents: number;
    /** A question the deleted content answered, and the title no longer cited. */
    readonly question: string;
    readonly goneTitle: string;
  };

  readonly accessToken: {
    readonly lifetimeMs: number;
    /** Where, among the requests since `mark`, the refresh and the first read came. */
    refreshAndFirstRead(mark: number): { refresh: number; firstRead: number };
  };

  /** The next `count` API calls answer 429 with `Retry-After: 1`. */
  rateLimitNext(count: number): void;

  /** A sync that fails half-way: content of its own, broken, then healed. */
  readonly crash: {
    /** Puts the content; returns the config that reads it. */
    seed(): Promise<Record<string, unknown>>;
    readonly documents: number;
    /** Makes a later page or file fail, so that an attempt throws after committing part. */
    breakMidway(): void;
    heal(): void;
    /** Exactly what the broken attempt indexed, when the provider's paging fixes it. */
    readonly indexedBeforeCrash: number | null;
    /** That the resumed attempt started from the committed cursor, not from the start. */
    expectResumed(mark: number, indexedBeforeCrash: number): void;
  };

  /** Revokes the service's access at the provider, as its admin would. */
  revokeAccess(): void;
  /** What a sync with revoked access reports. */
  readonly revokedError: RegExp;

  /** How disconnecting removes access at the provider. */
  readonly revocation:
    | {
        readonly atProvider: true;
        /** Grants still usable at the provider. */
        liveGrants(): number;
        /** That the provider got `count` revocations since `mark`. */
        expectRevoked(mark: number, count: number): void;
      }
    | {
        readonly atProvider: false;
        /** Where the disconnect answer tells people to remove access themselves. */
        readonly whereToRemove: string;
      };
}
