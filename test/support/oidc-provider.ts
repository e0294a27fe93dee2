import { join } from 'node:path';
import { exportJWK, generateKeyPair } from 'jose';
import { REPO_ROOT, type Running, start } from './child-process';

export interface TestOidcClient {
  readonly client_id: string;
  readonly client_secret: string;
  readonly redirect_uris: readonly string[];
}

export type IdTokenAttack =
  | 'wrong-nonce'
  | 'other-audience'
  | 'expired'
  | 'tampered'
  | 'foreign-key'
  | 'alg-none'
  | 'hs256';

/**
 * A real OpenID Provider (oidc-provider) in its own process on loopback
 * (test/support/oidc-provider/server.mjs), signing with an RS256 key made
 * here. `attackNextIdToken` makes it send one forged ID token.
 */
export class TestOidcProvider {
  issuer = '';
  private running: Running | undefined;

  async start(clients: readonly TestOidcClient[]): Promise<this> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
    this.running = start([join(REPO_ROOT, 'test', 'support', 'oidc-provider', 'server.mjs')], [], {
      OIDC_CLIENTS: JSON.stringify(
        clients.map((client) => ({
          ...client,
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
        })),
      ),
      OIDC_SIGNING_JWK: JSON.stringify(jwk),
    });
    const output = await this.running.waitFor(/OIDC_PROVIDER_LISTENING (\S+)/);
    this.issuer = /OIDC_PROVIDER_LISTENING (\S+)/.exec(output)?.[1] ?? '';
    return this;
  }

  async attackNextIdToken(mode: IdTokenAttack): Promise<void> {
    const response = await fetch(`${this.issuer}/__test/id-token`, {
      method: 'POST',
      body: JSON.stringify({ mode }),
    });
    if (response.status !== 204) throw new Error(`attack not set: ${response.status}`);
  }

  async stop(): Promise<void> {
    await this.running?.stop();
  }
}
