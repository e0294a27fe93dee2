import type { Interaction } from '../../domain/interaction';
import type { Principal } from '../../domain/principal';
import { grantsScope } from '../../domain/scopes';
import { roleAtLeast } from '../../domain/user';
import type { ApiKeyRepository } from '../../ports/api-key-repository.port';
import type { UserRepository } from '../../ports/user-repository.port';

/**
 * Who asked an interaction, as a person reads it: a signed-in user's name
 * and email, or an API key's name. `name` is null when the user or key no
 * longer exists; `email` is null for keys, and for viewers who may not read
 * users' addresses.
 */
export interface Asker {
  readonly type: 'user' | 'api_key';
  readonly id: string;
  readonly name: string | null;
  readonly email: string | null;
}

export interface AskerDependencies {
  readonly users: Pick<UserRepository, 'get'>;
  readonly apiKeys: Pick<ApiKeyRepository, 'listByOrganization'>;
}

/**
 * Emails are shown to those who may list the users anyway (an administrator,
 * an Admin key); a viewer with less sees colleagues' names only, so the
 * interactions list does not hand out addresses the users list would refuse.
 */
export function mayReadEmails(principal: Principal): boolean {
  return principal.kind === 'session'
    ? roleAtLeast(principal.role, 'admin')
    : grantsScope(principal.scopes, 'Admin');
}

/**
 * The askers of a page of interactions, by the interaction's id (null for
 * interactions recorded before askers were kept). Each distinct user is read
 * once; keys are listed once, only when the page has a key's question.
 */
export async function askersOf(
  deps: AskerDependencies,
  orgId: string,
  interactions: readonly Interaction[],
  options: { readonly withEmails: boolean },
): Promise<Map<string, Asker | null>> {
  const userIds = [...new Set(interactions.flatMap((interaction) => interaction.user_id ?? []))];
  const needsKeys = interactions.some((interaction) => !interaction.user_id && interaction.key_id);
  const [users, keys] = await Promise.all([
    Promise.all(userIds.map((id) => deps.users.get(orgId, id))),
    needsKeys ? deps.apiKeys.listByOrganization(orgId) : Promise.resolve([]),
  ]);
  const userById = new Map(users.flatMap((user) => (user ? [[user.id, user] as const] : [])));
  const keyNameById = new Map(keys.map((key) => [key.id, key.name] as const));
  return new Map(
    interactions.map((interaction): [string, Asker | null] => {
      if (interaction.user_id) {
        const user = userById.get(interaction.user_id);
        return [
          interaction.id,
          {
            type: 'user',
            id: interaction.user_id,
            name: user?.name ?? null,
            email: user && options.withEmails ? user.email : null,
          },
        ];
      }
      if (interaction.key_id) {
        return [
          interaction.id,
          {
            type: 'api_key',
            id: interaction.key_id,
            name: keyNameById.get(interaction.key_id) ?? null,
            email: null,
          },
        ];
      }
      return [interaction.id, null];
    }),
  );
}
