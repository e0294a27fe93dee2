import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SsoAuthenticationFailedError, UnauthorizedDomainError } from '../../domain/errors';
import { isId, newId } from '../../domain/ids';
import { emailDomain, SSO_LIMITS } from '../../domain/sso';
import { displayEmail, lookAlikeFolding, normalizeEmail, type User } from '../../domain/user';
import type {
  IdentityProviderUrlRule,
  OidcRelyingParty,
  SamlServiceProvider,
  SamlTrust,
} from '../../ports/identity-provider.port';
import type { OrganizationRepository } from '../../ports/organization-repository.port';
import type {
  SamlAssertionLedger,
  SsoFlowStore,
  SsoRepository,
  StoredSsoConfiguration,
} from '../../ports/sso.port';
import type { UserRepository, UserWithCredentials } from '../../ports/user-repository.port';
import type { SecretSealer } from '../../ports/webhook-repository.port';
import { type IssuedSession, type SessionDependencies, startSession } from '../auth/sessions';
import { changedFields, userCreated, userUpdated } from '../events/domain-events';
import { clientSecretContext } from './sso-configuration';

export interface SsoSignInDependencies extends SessionDependencies {
  readonly users: Pick<
    UserRepository,
    | 'get'
    | 'getWithGroups'
    | 'findByEmail'
    | 'create'
    | 'recordLogin'
    | 'update'
    | 'deleteInvitation'
  >;
  readonly organizations: Pick<OrganizationRepository, 'get'>;
  readonly ssoRepository: Pick<SsoRepository, 'getConfiguration' | 'listDomains' | 'domainOwner'>;
  readonly ssoFlows: SsoFlowStore;
  readonly secretSealer: Pick<SecretSealer, 'open'>;
  readonly oidcRelyingParty: OidcRelyingParty;
  readonly samlServiceProvider: SamlServiceProvider;
  readonly samlAssertions: SamlAssertionLedger;
  readonly identityProviderUrls: IdentityProviderUrlRule;
}

/** Where the provider sends the browser back: the service's own address, known per request. */
export const OIDC_CALLBACK_PATH = '/api/v1/sso/oidc/callback';

/** An organization's SAML endpoint: our entity id, the ACS (POST) and the SP metadata (GET). */
export const samlPath = (orgId: string) => `/api/v1/sso/saml/${orgId}`;

/** Our side of an organization's SAML trust, at the API's public address. */
export function samlTrust(configuration: StoredSsoConfiguration, baseUrl: string): SamlTrust {
  if (!configuration.saml) throw failed('SAML is not configured for this organization');
  const endpoint = `${baseUrl}${samlPath(configuration.org_id)}`;
  return {
    spEntityId: endpoint,
    acsUrl: endpoint,
    idpEntityId: configuration.saml.idp_entity_id,
    idpSsoUrl: configuration.saml.sso_url,
    // Configured before bindings were recorded, the SSO URL was a redirect's.
    idpSsoBinding: configuration.saml.sso_binding ?? 'redirect',
    idpCertificates: configuration.saml.idp_certificates,
  };
}

const randomToken = () => randomBytes(32).toString('base64url');
const sha256 = (value: string) => createHash('sha256').update(value).digest('base64url');
const failed = (message: string) => new SsoAuthenticationFailedError(message);

export interface StartedSignIn {
  /** Where to send the browser (the identity provider); null when it must post `form` instead. */
  readonly location: string | null;
  /** A SAML IdP that takes the HTTP-POST binding only: the form the browser posts to it. */
  readonly form: {
    readonly action: string;
    readonly fields: Readonly<Record<string, string>>;
  } | null;
  /** P90: the secret the browser keeps in a cookie, so only it can finish this sign-in. */
  readonly browserSecret: string;
  /** SAML comes back by a cross-site POST, which needs a `SameSite=None` cookie. */
  readonly protocol: 'oidc' | 'saml';
}

/** The organization a sign-in is for: named, or found by its verified email domain. */
async function organizationFor(
  deps: SsoSignInDependencies,
  input: { readonly orgId?: string | undefined; readonly email?: string | undefined },
): Promise<string> {
  if (input.orgId !== undefined) {
    if (!isId('organization', input.orgId)) throw failed('Malformed org_id');
    return input.orgId;
  }
  const domain = input.email === undefined ? null : emailDomain(input.email);
  const owner = domain ? await deps.ssoRepository.domainOwner(domain) : null;
  if (!owner) throw failed('No organization signs in with SSO for this email');
  return owner;
}

/** The organization's configuration, if it may sign in with SSO now (enterprise plan). */
async function activeConfiguration(
  deps: SsoSignInDependencies,
  orgId: string,
): Promise<StoredSsoConfiguration> {
  const [organization, configuration] = await Promise.all([
    deps.organizations.get(orgId),
    deps.ssoRepository.getConfiguration(orgId),
  ]);
  if (organization?.plan !== 'enterprise' || !configuration) {
    throw failed('SSO is not configured for this organization');
  }
  return configuration;
}

function oidcOf(configuration: StoredSsoConfiguration) {
  if (configuration.protocol !== 'oidc' || !configuration.oidc) {
    throw failed('OIDC is not configured for this organization');
  }
  return configuration.oidc;
}

/**
 * Leaves for the organization's identity provider — authorization code
 * with PKCE (S256), a fresh `state` and `nonce`. The flow is stored for 10
 * minutes under its state, bound to the browser by a secret cookie (P90).
 */
export async function startSsoSignIn(
  deps: SsoSignInDependencies,
  input: {
    readonly orgId?: string | undefined;
    readonly email?: string | undefined;
    /** Where to land once signed in (a path checked at the edge); null: the console's start. */
    readonly returnTo?: string | undefined;
    readonly baseUrl: string;
  },
): Promise<StartedSignIn> {
  const orgId = await organizationFor(deps, input);
  const configuration = await activeConfiguration(deps, orgId);
  const browserSecret = randomToken();
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const flow = {
    org_id: orgId,
    browser_hash: sha256(browserSecret),
    expires_at: nowSeconds + SSO_LIMITS.flowSeconds,
    return_to: input.returnTo ?? null,
  };
  if (configuration.protocol === 'saml') {
    // Checked when configured; again here for what was stored before that rule.
    const ssoUrl = configuration.saml?.sso_url ?? '';
    const check = deps.identityProviderUrls.check(ssoUrl);
    if (!check.ok) throw failed(`SAML SSO URL refused: ${check.reason}`);
    // RelayState names the flow; the AuthnRequest id (an NCName) is what InResponseTo must say.
    const relayState = randomToken();
    const requestId = `_${randomBytes(20).toString('hex')}`;
    await deps.ssoFlows.save({
      ...flow,
      id: relayState,
      protocol: 'saml',
      nonce: null,
      code_verifier: null,
      request_id: requestId,
    });
    const authorization = await deps.samlServiceProvider.authorization(
      samlTrust(configuration, input.baseUrl),
      requestId,
      relayState,
    );
    return authorization.binding === 'redirect'
      ? { location: authorization.location, form: null, browserSecret, protocol: 'saml' }
      : { location: null, form: authorization, browserSecret, protocol: 'saml' };
  }
  const oidc = oidcOf(configuration);
  const state = randomToken();
  const nonce = randomToken();
  const codeVerifier = randomToken();
  await deps.ssoFlows.save({
    ...flow,
    id: state,
    protocol: 'oidc',
    nonce,
    code_verifier: codeVerifier,
    request_id: null,
  });
  const location = await deps.oidcRelyingParty.authorizationUrl(
    {
      issuer: oidc.issuer,
      clientId: oidc.client_id,
      scopes: oidc.scopes,
      redirectUri: `${input.baseUrl}${OIDC_CALLBACK_PATH}`,
    },
    { state, nonce, codeChallenge: sha256(codeVerifier) },
  );
  return { location, form: null, browserSecret, protocol: 'oidc' };
}

export interface SsoSignedIn {
  readonly orgId: string;
  readonly user: User;
  readonly session: IssuedSession;
  /** The path the start named, kept in the flow (null: none). */
  readonly returnTo: string | null;
}

function sameHash(secret: string | undefined, expected: string): boolean {
  if (secret === undefined) return false;
  const a = Buffer.from(sha256(secret));
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * The provider's redirect back. The flow is taken once (a replayed
 * callback finds nothing), must belong to this browser, the code is
 * exchanged with the PKCE verifier and the ID token verified (the relying
 * party); then the email must be in a verified domain of the organization
 * ("Unauthorized domain") and belong to an active user of it, or be
 * provisioned. The session is the same as a password sign-in's.
 */
export async function completeOidcSignIn(
  deps: SsoSignInDependencies,
  input: {
    readonly state: string | undefined;
    readonly code: string | undefined;
    readonly error: string | undefined;
    readonly browserSecret: string | undefined;
    readonly baseUrl: string;
  },
): Promise<SsoSignedIn> {
  if (!input.state) throw failed('Callback without state');
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const flow = await deps.ssoFlows.take(input.state, nowSeconds);
  if (flow?.protocol !== 'oidc' || !flow.nonce || !flow.code_verifier) {
    throw failed('Unknown, used or expired sign-in state');
  }
  if (!sameHash(input.browserSecret, flow.browser_hash)) {
    throw failed('The sign-in was started in another browser');
  }
  if (input.error !== undefined)
    throw failed(`The identity provider answered ${input.error.slice(0, 100)}`);
  if (!input.code) throw failed('Callback without code');
  const configuration = await activeConfiguration(deps, flow.org_id);
  const oidc = oidcOf(configuration);
  if (!configuration.client_secret_sealed) throw failed('No client secret configured');
  const clientSecret = await deps.secretSealer.open(
    configuration.client_secret_sealed,
    clientSecretContext(flow.org_id),
  );
  const claims = await deps.oidcRelyingParty.completeSignIn(
    {
      issuer: oidc.issuer,
      clientId: oidc.client_id,
      scopes: oidc.scopes,
      redirectUri: `${input.baseUrl}${OIDC_CALLBACK_PATH}`,
    },
    { code: input.code, codeVerifier: flow.code_verifier, nonce: flow.nonce, clientSecret },
  );
  const email = claims[configuration.attribute_mapping.email];
  if (typeof email !== 'string' || email === '') throw failed('The ID token carries no email');
  // An address the provider says it has not verified proves nothing about the domain.
  if (claims.email_verified === false) throw failed('The provider has not verified this email');
  return { ...(await signInByEmail(deps, configuration, email)), returnTo: flow.return_to ?? null };
}

/**
 * SAML: the IdP's POST to the organization's ACS. The flow named by
 * RelayState is taken once and must be this organization's and this
 * browser's; the response must answer its AuthnRequest and carry a signed
 * assertion that passes every check (the service provider); an assertion
 * id seen before is a replay. Then the same user rules as OIDC.
 */
export async function completeSamlSignIn(
  deps: SsoSignInDependencies,
  input: {
    readonly orgId: string;
    readonly samlResponse: string;
    readonly relayState: string | undefined;
    readonly browserSecret: string | undefined;
    readonly baseUrl: string;
  },
): Promise<SsoSignedIn> {
  if (!input.relayState) throw failed('SAML response without RelayState (IdP-initiated sign-in)');
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  const flow = await deps.ssoFlows.take(input.relayState, nowSeconds);
  if (flow?.protocol !== 'saml' || !flow.request_id || flow.org_id !== input.orgId) {
    throw failed('Unknown, used or expired sign-in');
  }
  if (!sameHash(input.browserSecret, flow.browser_hash)) {
    throw failed('The sign-in was started in another browser');
  }
  const configuration = await activeConfiguration(deps, flow.org_id);
  const identity = await deps.samlServiceProvider.validateResponse(
    samlTrust(configuration, input.baseUrl),
    input.samlResponse,
    flow.request_id,
  );
  const until =
    Math.max(identity.notOnOrAfter ?? 0, nowSeconds) + SSO_LIMITS.assertionMemorySeconds;
  if (!(await deps.samlAssertions.remember(identity.issuer, identity.assertionId, until))) {
    throw failed(`SAML assertion ${identity.assertionId} was used before`);
  }
  const mapped = configuration.attribute_mapping.email;
  const value = mapped === 'nameID' ? identity.nameId : identity.attributes[mapped];
  const email = Array.isArray(value) ? value[0] : value;
  if (typeof email !== 'string' || email === '') throw failed('The assertion carries no email');
  return { ...(await signInByEmail(deps, configuration, email)), returnTo: flow.return_to ?? null };
}

/**
 * The user of `email` in the organization, after the domain check;
 * provisioned if configured so. A domain that became unverified still
 * signs in the users the organization has (active, or invited), and
 * provisions nobody.
 */
async function signInByEmail(
  deps: SsoSignInDependencies,
  configuration: StoredSsoConfiguration,
  providedEmail: string,
): Promise<Omit<SsoSignedIn, 'returnTo'>> {
  const orgId = configuration.org_id;
  // An address with control or invisible characters is refused; look-alikes fold into one.
  const email = displayEmail(providedEmail);
  if (email === null) throw failed('The provider sent an email that is not an address');
  const domain = emailDomain(email);
  const listed = (await deps.ssoRepository.listDomains(orgId)).find(
    (candidate) => candidate.domain === domain,
  );
  // A domain a re-check unverified still lets the organization's own users in.
  if (!domain || (listed?.status !== 'verified' && listed?.status !== 'unverified')) {
    throw new UnauthorizedDomainError(`${domain ?? 'This email'} is not a verified domain here`, {
      reason: 'unauthorized_domain',
    });
  }
  const normalized = normalizeEmail(email);
  const [found] = await deps.users.findByEmail(normalized, orgId);
  let user = found?.user;
  if (!user && listed.status !== 'verified') {
    // But admits no new ones until it is verified again.
    throw new UnauthorizedDomainError(`${domain} is no longer verified: no new users`, {
      reason: 'unauthorized_domain',
    });
  }
  if (!user) {
    // A look-alike finds the user it looks like (above), but makes nobody new.
    if (lookAlikeFolding(providedEmail) !== null) {
      throw failed(
        'The provider sent an address with look-alike characters: nobody is provisioned',
      );
    }
    user = await provision(deps, configuration, email);
  }
  if (found && user.status === 'invited') user = await activateInvited(deps, orgId, found);
  if (user.status !== 'active') throw failed(`User ${user.id} is ${user.status}`);
  const now = deps.clock.now().toISOString();
  await deps.users.recordLogin(orgId, user.id, now);
  const session = await startSession(deps, orgId, user.id, 'sso');
  return { orgId, user: { ...user, last_login_at: now }, session };
}

/**
 * An invited user who signs in through SSO becomes active (the
 * provider vouched for the email the administrator invited), without a
 * password; their invitation can no longer be accepted. Under `enforce_sso`
 * this is the only way in, as accepting is refused.
 */
async function activateInvited(
  deps: SsoSignInDependencies,
  orgId: string,
  found: UserWithCredentials,
): Promise<User> {
  const now = deps.clock.now();
  const next: User = { ...found.user, status: 'active', updated_at: now.toISOString() };
  const updated = await deps.users.update(
    orgId,
    found.user.id,
    { status: 'active', updated_at: next.updated_at },
    {
      expectedVersion: found.version,
      // Their own sign-in activated them.
      events: [
        userUpdated(
          orgId,
          next,
          changedFields(found.user, next),
          { kind: 'user', user_id: found.user.id },
          now,
        ),
      ],
      credentials: { invitation: null },
      now: now.getTime(),
    },
  );
  if (updated === null || updated === 'email_taken') {
    // Changed meanwhile (accepted, deactivated, or a simultaneous sign-in): use what is stored now.
    const current = await deps.users.get(orgId, found.user.id);
    if (!current) throw failed(`User ${found.user.id} is gone`);
    return current;
  }
  if (found.credentials.invitation) {
    await deps.users.deleteInvitation(found.credentials.invitation.tokenHash);
  }
  return updated;
}

/** A first SSO sign-in of a verified domain's user creates them, active, with the configured role. */
async function provision(
  deps: SsoSignInDependencies,
  configuration: StoredSsoConfiguration,
  email: string,
): Promise<User> {
  if (!configuration.provision_role) throw failed('Unknown user, and provisioning is off');
  const now = deps.clock.now();
  const user: User = {
    id: newId('user', now.getTime()),
    email,
    name: email,
    role: configuration.provision_role,
    status: 'active',
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    last_login_at: null,
  };
  const outcome = await deps.users.create(configuration.org_id, user, {
    passwordHash: null,
    invitation: null,
    // Their own first sign-in created them.
    events: [userCreated(configuration.org_id, user, { kind: 'user', user_id: user.id }, now)],
    now: now.getTime(),
  });
  if (outcome !== undefined) {
    // Created by a simultaneous sign-in: use that one.
    const [existing] = await deps.users.findByEmail(normalizeEmail(email), configuration.org_id);
    if (!existing) throw failed('The user could not be provisioned');
    return existing.user;
  }
  return user;
}
