/**
 * A real OpenID Provider for the SSO tests (panva's oidc-provider, certified
 * by the OpenID Foundation), run as its own process because it is published
 * as ESM only. Settings come from the environment:
 *
 * - OIDC_CLIENTS: JSON array of client metadata (id, secret, redirect URIs);
 * - OIDC_SIGNING_JWK: the private JWK it signs ID tokens with.
 *
 * Anyone may sign in with any login: the login is the account's email (the
 * development interactions ask for it, then for consent). It prints
 * `OIDC_PROVIDER_LISTENING <issuer>` once it serves.
 *
 * Test hook, for attacks no honest provider makes: `POST /__test/id-token`
 * with `{"mode": …}` changes the ID token of the next token response once:
 * `wrong-nonce`, `other-audience`, `expired` (re-signed with the provider's
 * key), `tampered` (payload changed, signature kept), `foreign-key` (signed
 * by another key under the same kid), `alg-none` (unsigned), `hs256` (signed
 * with the client secret).
 */
import { createServer } from 'node:http';
import * as jose from 'jose';
import Provider from 'oidc-provider';

const clients = JSON.parse(process.env.OIDC_CLIENTS ?? '[]');
const signingJwk = JSON.parse(process.env.OIDC_SIGNING_JWK ?? 'null');

let nextMode = null;

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  clients,
  jwks: { keys: [signingJwk] },
  cookies: { keys: ['sso tests only: not a secret'] },
  findAccount: async (_ctx, id) => ({
    accountId: id,
    claims: async () => ({ sub: id, email: id, email_verified: true, name: id }),
  }),
  claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
  // The scopes' claims go into the ID token too (the relying party reads only the ID token).
  conformIdTokenClaims: false,
  pkce: { required: () => true },
  features: { devInteractions: { enabled: true } },
});

async function rewrite(idToken, mode, clientSecret) {
  const [headerPart, payloadPart] = idToken.split('.');
  const header = JSON.parse(Buffer.from(headerPart, 'base64url').toString());
  const payload = JSON.parse(Buffer.from(payloadPart, 'base64url').toString());
  const now = Math.floor(Date.now() / 1000);
  const key = await jose.importJWK(signingJwk, header.alg);
  const sign = (claims, signingKey = key, alg = header.alg) =>
    new jose.SignJWT(claims).setProtectedHeader({ alg, kid: header.kid }).sign(signingKey);
  switch (mode) {
    case 'wrong-nonce':
      return sign({ ...payload, nonce: 'a nonce of another sign-in' });
    case 'other-audience':
      return sign({ ...payload, aud: 'another-client', azp: 'another-client' });
    case 'expired':
      return sign({ ...payload, iat: now - 7200, exp: now - 3600 });
    case 'tampered': {
      const changed = { ...payload, email: 'mallory@evil.example', sub: 'mallory@evil.example' };
      const parts = idToken.split('.');
      parts[1] = Buffer.from(JSON.stringify(changed)).toString('base64url');
      return parts.join('.');
    }
    case 'foreign-key': {
      const { privateKey } = await jose.generateKeyPair(header.alg);
      return sign(payload, privateKey);
    }
    case 'alg-none': {
      const unsigned = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString(
        'base64url',
      );
      return `${unsigned}.${payloadPart}.`;
    }
    case 'hs256':
      return sign(payload, new TextEncoder().encode(clientSecret), 'HS256');
    default:
      throw new Error(`unknown mode ${mode}`);
  }
}

provider.use(async (ctx, next) => {
  if (ctx.method === 'POST' && ctx.path === '/__test/id-token') {
    const chunks = [];
    for await (const chunk of ctx.req) chunks.push(chunk);
    nextMode = JSON.parse(Buffer.concat(chunks).toString()).mode;
    ctx.status = 204;
    return;
  }
  await next();
  if (ctx.path === '/token' && nextMode && ctx.body && typeof ctx.body.id_token === 'string') {
    const mode = nextMode;
    nextMode = null;
    const secret = clients.find((client) => client.client_id === ctx.oidc?.client?.clientId);
    ctx.body = {
      ...ctx.body,
      id_token: await rewrite(ctx.body.id_token, mode, secret?.client_secret ?? ''),
    };
  }
});

server.on('request', provider.callback());
process.stdout.write(`OIDC_PROVIDER_LISTENING ${issuer}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
