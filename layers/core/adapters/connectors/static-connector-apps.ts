import type { ConnectorType } from '../../domain/connector';
import type { ConnectorApps, OAuthApp } from '../../ports/connector.port';

/** The providers' apps from settings (the local runtime's environment); an absent one is not configured. */
export class StaticConnectorApps implements ConnectorApps {
  constructor(private readonly apps: Partial<Record<ConnectorType, OAuthApp>>) {}

  async appFor(type: ConnectorType): Promise<OAuthApp | null> {
    return this.apps[type] ?? null;
  }
}
