import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/**
 * Organizations and their API keys: the table only. Every
 * HTTP family already builds the organization and API key repositories to
 * authenticate and limit requests (cloud-http-platform.ts), and these
 * operations need nothing else.
 */
export const dependencies = compositionRoot(() => ({ ...cloudHttpPlatform() }));

export type OrganizationsDependencies = ReturnType<typeof dependencies>;
