import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** Sign-in (D12): the table (users, revoked sessions, the sign-in throttle) and the session secret. */
export const dependencies = compositionRoot(() => ({ ...cloudHttpPlatform() }));

export type AuthDependencies = ReturnType<typeof dependencies>;
