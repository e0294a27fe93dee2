import { Logger } from '@aws-lambda-powertools/logger';
import type { APIGatewayProxyResult } from 'aws-lambda';
import {
  NotFoundError,
  SsoAuthenticationFailedError,
  UnauthorizedDomainError,
} from '../../layers/core/domain/errors';
import type { Principal } from '../../layers/core/domain/principal';
import type { SsoConfiguration } from '../../layers/core/domain/sso';
import { SSO_DEFAULT_RETURN_PATH, SSO_LIMITS, SSO_START_PATH } from '../../layers/core/domain/sso';
import { httpFunction } from '../../layers/core/http/http-function';
import type { RequestClient } from '../../layers/core/http/operation';
import { operationsWith, publicOperationsWith } from '../../layers/core/http/operation';
import { pageRequest } from '../../layers/core/http/pagination.schema';
import { emptyResponse, jsonResponse } from '../../layers/core/http/responses';
import { SSO_ROUTES } from '../../layers/core/http/routes/sso';
import { sessionCookie } from '../../layers/core/http/session-cookie';
import {
  addSsoDomain,
  deleteSsoConfiguration,
  deleteSsoDomain,
  getSsoConfiguration,
  listSsoDomains,
  putSsoConfiguration,
  verifySsoDomain,
} from '../../layers/core/use-cases/sso/sso-configuration';
import {
  completeOidcSignIn,
  completeSamlSignIn,
  OIDC_CALLBACK_PATH,
  type SsoSignedIn,
  samlPath,
  samlTrust,
  startSsoSignIn,
} from '../../layers/core/use-cases/sso/sso-sign-in';
import { AUTHENTICATION_FAILED, postFormPage, seeOther, UNAUTHORIZED_DOMAIN } from './pages';
import {
  addDomainBody,
  listDomainsQuery,
  oidcCallbackQuery,
  samlPostBody,
  ssoConfigurationBody,
  ssoConfigurationResource,
  ssoDomainList,
  ssoDomainResource,
  startQuery,
} from './sso.schema';
import { dependencies, type SsoDependencies } from './wiring';

const operation = operationsWith<SsoDependencies>();
const publicOperation = publicOperationsWith<SsoDependencies>();
const logger = new Logger({ serviceName: 'svc-sso' });

/** P90: the cookie binding a sign-in to the browser that started it, sent back only to the SSO paths. */
const FLOW_COOKIE = 'svc_sso_flow';
const FLOW_COOKIE_PATH = '/api/v1/sso';
/**
 * P262 (amends P90): where a signed-in browser lands: the `next` its start
 * named (a path on this origin, checked by the schema and kept in the flow),
 * else the console's start page. A client that wants the session as JSON
 * names `next=/api/v1/auth/me`.
 */
const landing = (base: string, signedIn: SsoSignedIn) =>
  `${base}${signedIn.returnTo ?? SSO_DEFAULT_RETURN_PATH}`;

/**
 * OIDC comes back by a top-level GET, which carries `SameSite=Lax` cookies;
 * SAML by the IdP page's cross-site POST, which carries only `SameSite=None`
 * ones: its flow cookie is that, under another name.
 */
const SAML_FLOW_COOKIE = 'svc_sso_saml_flow';
const flowCookie = (value: string, maxAge: number, protocol: 'oidc' | 'saml' = 'oidc') =>
  protocol === 'saml'
    ? `${SAML_FLOW_COOKIE}=${value}; Max-Age=${maxAge}; Path=${FLOW_COOKIE_PATH}/saml; HttpOnly; Secure; SameSite=None`
    : `${FLOW_COOKIE}=${value}; Max-Age=${maxAge}; Path=${FLOW_COOKIE_PATH}; HttpOnly; Secure; SameSite=Lax`;

/** The API's own address: configured (the local runtime, a custom domain), else as API Gateway was reached. */
function baseUrl(deps: SsoDependencies, client: RequestClient): string {
  const url = deps.publicBaseUrl() ?? client.apiBaseUrl;
  if (!url) throw new Error('The API address is unknown: set SVC_PUBLIC_URL');
  return url.replace(/\/$/, '');
}

/** The session making an SSO change keeps working when `enforce_sso` ends password sessions. */
const actingSessionOf = (principal: Principal) =>
  principal.kind === 'session' ? principal.sessionId : null;

/** With the links an administrator needs to register at the provider. */
function configurationBody(configuration: SsoConfiguration, base: string) {
  return {
    ...configuration,
    redirect_uri: `${base}${OIDC_CALLBACK_PATH}`,
    saml_service_provider: {
      entity_id: `${base}${samlPath(configuration.org_id)}`,
      acs_url: `${base}${samlPath(configuration.org_id)}`,
    },
    sign_in_url: `${base}${SSO_START_PATH}?org_id=${configuration.org_id}`,
  };
}

/**
 * SSO's failure pages: the reason goes to the log only. Other errors
 * (DynamoDB unavailable, …) keep the API's error answers.
 */
async function asPage(run: () => Promise<APIGatewayProxyResult>): Promise<APIGatewayProxyResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof UnauthorizedDomainError) {
      logger.warn('SSO sign-in refused', { reason: error.message });
      return UNAUTHORIZED_DOMAIN();
    }
    if (error instanceof SsoAuthenticationFailedError) {
      logger.warn('SSO sign-in failed', { reason: error.message });
      return AUTHENTICATION_FAILED();
    }
    throw error;
  }
}

const orgPath = { id: 'organization' } as const;

/** SSO configuration and verified domains (admins), and the browser's sign-in through the provider. */
export const operations = {
  getSsoConfiguration: operation({
    summary: "The organization's SSO configuration (never the client secret)",
    pathIds: orgPath,
    responses: { 200: { description: 'The configuration', schema: ssoConfigurationResource } },
    async handle({ params, principal, deps, client }) {
      const configuration = await getSsoConfiguration(deps, principal.orgId, params.id ?? '');
      return jsonResponse(200, configurationBody(configuration, baseUrl(deps, client)));
    },
  }),
  putSsoConfiguration: operation({
    summary: 'Configure SSO (enterprise plan and a verified domain required); takes effect at once',
    pathIds: orgPath,
    body: ssoConfigurationBody,
    responses: { 200: { description: 'The configuration', schema: ssoConfigurationResource } },
    async handle({ params, principal, body, deps, client }) {
      const configuration = await putSsoConfiguration(
        deps,
        principal.orgId,
        params.id ?? '',
        body,
        actingSessionOf(principal),
      );
      return jsonResponse(200, configurationBody(configuration, baseUrl(deps, client)));
    },
  }),
  deleteSsoConfiguration: operation({
    summary: 'Remove SSO: password sign-in applies again',
    pathIds: orgPath,
    responses: { 204: { description: 'Removed' } },
    async handle({ params, principal, deps }) {
      await deleteSsoConfiguration(deps, principal.orgId, params.id ?? '');
      return emptyResponse(204);
    },
  }),
  listSsoDomains: operation({
    summary: "The organization's SSO domains, verified or pending",
    pathIds: orgPath,
    query: listDomainsQuery,
    responses: { 200: { description: 'The domains', schema: ssoDomainList } },
    async handle({ params, principal, query, deps }) {
      const all = await listSsoDomains(deps, principal.orgId, params.id ?? '');
      const page = pageRequest(query);
      return jsonResponse(200, {
        domains: all.slice(page.offset, page.offset + page.limit),
        total: all.length,
        ...page,
      });
    },
  }),
  addSsoDomain: operation({
    summary: 'Add a domain to verify: the answer names the DNS TXT record to publish',
    pathIds: orgPath,
    body: addDomainBody,
    responses: { 201: { description: 'The pending domain', schema: ssoDomainResource } },
    async handle({ params, principal, body, deps }) {
      return jsonResponse(
        201,
        await addSsoDomain(deps, principal.orgId, params.id ?? '', body.domain),
      );
    },
  }),
  verifySsoDomain: operation({
    summary: "Verify a domain: its TXT record must carry the domain's token",
    pathIds: orgPath,
    responses: { 200: { description: 'The verified domain', schema: ssoDomainResource } },
    async handle({ params, principal, deps }) {
      const domain = await verifySsoDomain(
        deps,
        principal.orgId,
        params.id ?? '',
        params.domain ?? '',
        actingSessionOf(principal),
      );
      return jsonResponse(200, domain);
    },
  }),
  deleteSsoDomain: operation({
    summary: 'Remove a domain (and its verification)',
    pathIds: orgPath,
    responses: { 204: { description: 'Removed' } },
    async handle({ params, principal, deps }) {
      await deleteSsoDomain(deps, principal.orgId, params.id ?? '', params.domain ?? '');
      return emptyResponse(204);
    },
  }),
  startSsoSignIn: publicOperation({
    summary:
      "Sign in with SSO: redirects to the organization's identity provider; `next` is where to land afterwards",
    query: startQuery,
    responses: {
      200: {
        description: 'A form to post to an identity provider that takes HTTP-POST only',
        contentType: 'text/html',
      },
      303: { description: 'To the identity provider' },
      401: { description: "The 'Authentication failed' page", contentType: 'text/html' },
    },
    handle: ({ query, deps, client }) =>
      asPage(async () => {
        const started = await startSsoSignIn(deps, {
          orgId: query.org_id,
          email: query.email,
          returnTo: query.next,
          baseUrl: baseUrl(deps, client),
        });
        const cookies = [
          flowCookie(started.browserSecret, SSO_LIMITS.flowSeconds, started.protocol),
        ];
        return started.form
          ? postFormPage(started.form, cookies)
          : seeOther(started.location ?? '', cookies);
      }),
  }),
  completeOidcSignIn: publicOperation({
    summary: "The identity provider's redirect back: signs in and sets svc_session",
    query: oidcCallbackQuery,
    responses: {
      303: {
        description:
          'Signed in: svc_session is set, on to the `next` the start named, else the console (`/`)',
      },
      401: { description: "The 'Authentication failed' page", contentType: 'text/html' },
      403: { description: "The 'Unauthorized domain' page", contentType: 'text/html' },
    },
    handle: ({ query, deps, client }) =>
      asPage(async () => {
        const signedIn = await completeOidcSignIn(deps, {
          state: query.state,
          code: query.code,
          error: query.error,
          browserSecret: client.cookie(FLOW_COOKIE),
          baseUrl: baseUrl(deps, client),
        });
        const { claims, token } = signedIn.session;
        return seeOther(landing(baseUrl(deps, client), signedIn), [
          sessionCookie(token, claims.exp, claims.iat),
          flowCookie('', 0),
        ]);
      }),
  }),
  getSamlMetadata: publicOperation({
    summary: "Our SAML service provider metadata for the organization's IdP",
    pathIds: { org_id: 'organization' },
    responses: {
      200: { description: 'SAML 2.0 metadata (XML)', contentType: 'application/samlmetadata+xml' },
      404: { description: 'SAML is not configured for this organization' },
    },
    async handle({ params, deps, client }) {
      const orgId = params.org_id ?? '';
      const configuration = await deps.ssoRepository.getConfiguration(orgId);
      if (configuration?.protocol !== 'saml') {
        throw new NotFoundError('SAML is not configured for this organization');
      }
      const xml = await deps.samlServiceProvider.metadata(
        samlTrust(configuration, baseUrl(deps, client)),
      );
      return {
        statusCode: 200,
        headers: { 'Content-Type': 'application/samlmetadata+xml' },
        body: xml,
      };
    },
  }),
  completeSamlSignIn: publicOperation({
    summary: "The IdP's HTTP-POST of a SAML response (ACS): signs in and sets svc_session",
    pathIds: { org_id: 'organization' },
    body: samlPostBody,
    responses: {
      303: {
        description:
          'Signed in: svc_session is set, on to the `next` the start named, else the console (`/`)',
      },
      401: { description: "The 'Authentication failed' page", contentType: 'text/html' },
      403: { description: "The 'Unauthorized domain' page", contentType: 'text/html' },
    },
    handle: ({ params, body, deps, client }) =>
      asPage(async () => {
        const signedIn = await completeSamlSignIn(deps, {
          orgId: params.org_id ?? '',
          samlResponse: body.SAMLResponse,
          relayState: body.RelayState,
          browserSecret: client.cookie(SAML_FLOW_COOKIE),
          baseUrl: baseUrl(deps, client),
        });
        const { claims, token } = signedIn.session;
        return seeOther(landing(baseUrl(deps, client), signedIn), [
          sessionCookie(token, claims.exp, claims.iat),
          flowCookie('', 0, 'saml'),
        ]);
      }),
  }),
};

export const handler = httpFunction({
  family: 'sso',
  routes: SSO_ROUTES,
  operations,
  dependencies,
});
