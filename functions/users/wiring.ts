import { cloudHttpPlatform } from '../../layers/core/wiring/cloud/cloud-http-platform';
import { cloudInvitationSender } from '../../layers/core/wiring/cloud/cloud-sessions';
import { compositionRoot } from '../../layers/core/wiring/composition-root';

/** Users (D13): the table, the session secret every family checks sessions with, no mail (P61). */
export const dependencies = compositionRoot(() => ({
  ...cloudHttpPlatform(),
  ...cloudInvitationSender(),
}));

export type UsersDependencies = ReturnType<typeof dependencies>;
