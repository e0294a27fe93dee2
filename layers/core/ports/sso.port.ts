import type {
  AttributeMapping,
  OidcSettings,
  SamlSettings,
  SsoDomain,
  SsoProtocol,
} from '../domain/sso';
import type { Role } from '../domain/user';

/** An organization's SSO configuration as stored: the OIDC client secret sealed, never in the clear. */
export interface StoredSsoConfiguration {
  readonly org_id: string;
  readonly protocol: SsoProtocol;
  readonly enforce_sso: boolean;
  readonly oidc: OidcSettings | null;
  /** The client secret, sealed by the SecretSealer under this organization's context. */
  readonly client_secret_sealed: string | null;
  readonly saml: SamlSettings | null;
  readonly attribute_mapping: AttributeMapping;
  readonly provision_role: Role | null;
  readonly created_at: string;
  readonly updated_at: string;
}

/** A domain as stored: what the API shows, plus the verification token (part of the shown TXT value). */
export type StoredSsoDomain = SsoDomain;

/** SSO configurations and verified domains, per organization. */
export interface SsoRepository {
  getConfiguration(orgId: string): Promise<StoredSsoConfiguration | null>;
  putConfiguration(configuration: StoredSsoConfiguration): Promise<void>;
  /** Whether there was one to delete. */
  deleteConfiguration(orgId: string): Promise<boolean>;
  listDomains(orgId: string): Promise<StoredSsoDomain[]>;
  getDomain(orgId: string, domain: string): Promise<StoredSsoDomain | null>;
  /** Adds a pending domain; false when the organization already lists it. */
  addDomain(orgId: string, domain: StoredSsoDomain): Promise<boolean>;
  /**
   * Marks a domain verified and claims it for the organization: false when
   * another organization holds it verified already (a domain belongs to one).
   * The claim is due for its re-check at `nextCheckAt`.
   */
  markVerified(orgId: string, domain: string, at: string, nextCheckAt: string): Promise<boolean>;
  /** Records a failed check (the domain stays as it was). */
  recordFailedCheck(orgId: string, domain: string, at: string, error: string): Promise<void>;
  /** The claims whose re-check is due by `now` (an eventually consistent index). */
  listDueForCheck(now: string): Promise<DueDomainCheck[]>;
  /**
   * Moves a claim's next re-check from `from` to `to`, only if it is
   * still this organization's and still due at `from`: of two runs at once,
   * one takes the check.
   */
  moveNextCheck(due: DueDomainCheck, to: string): Promise<boolean>;
  /** A re-check found the record: `checked_at` is now, `last_error` cleared (a verified domain only). */
  recordConfirmedCheck(orgId: string, domain: string, at: string): Promise<void>;
  /**
   * A re-check found the record gone: the domain becomes `unverified`
   * (when and why recorded) if it was verified, and the organization's
   * claim is released, so the domain routes and enforces nothing any more
   * and another organization may verify it.
   */
  markUnverified(orgId: string, domain: string, at: string, reason: string): Promise<void>;
  /** Removes a domain and its claim; false when the organization has no such domain. */
  deleteDomain(orgId: string, domain: string): Promise<boolean>;
  /** The organization holding `domain` verified, if any. */
  domainOwner(domain: string): Promise<string | null>;
}

/** A verified domain's claim whose re-check is due. */
export interface DueDomainCheck {
  readonly orgId: string;
  readonly domain: string;
  readonly nextCheckAt: string;
}

/** A sign-in on its way through the identity provider: what the callback must find again. */
export interface SsoFlow {
  /** OIDC `state`, or SAML's `RelayState`. */
  readonly id: string;
  readonly org_id: string;
  readonly protocol: SsoProtocol;
  /** SHA-256 of the browser binding cookie: only the browser that started it can finish it. */
  readonly browser_hash: string;
  /** OIDC only: the nonce and the PKCE verifier. */
  readonly nonce: string | null;
  readonly code_verifier: string | null;
  /** SAML only: the AuthnRequest's id, which the response's `InResponseTo` must name. */
  readonly request_id: string | null;
  /** Epoch seconds after which the flow is void (and its item expires, TTL). */
  readonly expires_at: number;
  /** The same-origin path to land on once signed in; absent on flows stored before it. */
  readonly return_to?: string | null;
}

/** Sign-ins in progress (DynamoDB items with a TTL): each can be finished once. */
export interface SsoFlowStore {
  save(flow: SsoFlow): Promise<void>;
  /** The flow, removed so that nobody can take it again; null when unknown, taken or expired. */
  take(id: string, nowSeconds: number): Promise<SsoFlow | null>;
}

/** SAML assertion ids already accepted (replay refusal), kept for a while with a TTL. */
export interface SamlAssertionLedger {
  /** True the first time `issuer` + `assertionId` is seen; false for a replay. */
  remember(issuer: string, assertionId: string, untilSeconds: number): Promise<boolean>;
}

/** DNS TXT look-ups for domain verification. */
export interface TxtResolver {
  /** Every TXT record of `name`, each one's strings joined; [] when the name has none. */
  resolveTxt(name: string): Promise<string[]>;
}
