import type { EndpointFamily, FamilyNeeds } from '../../functions/endpoint-family';
import { ENDPOINT_FAMILIES } from '../../functions/families';

/** The names of the endpoint families whose declared needs pass `test`, in the list's order. */
export function familiesThat(test: (needs: FamilyNeeds) => boolean): string[] {
  return ENDPOINT_FAMILIES.filter((family) => test(family.needs)).map((family) => family.name);
}

/** One endpoint family's declaration, by name. */
export function declaredFamily(name: string): EndpointFamily {
  const family = ENDPOINT_FAMILIES.find((candidate) => candidate.name === name);
  if (!family) throw new Error(`no endpoint family "${name}" in functions/families.ts`);
  return family;
}
