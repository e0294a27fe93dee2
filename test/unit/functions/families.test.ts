import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ENDPOINT_FAMILIES } from '../../../functions/families';
import { ROUTES } from '../../../layers/core/http/routes/route-table';

const functionsDir = join(__dirname, '..', '..', '..', 'functions');

describe('The endpoint families (functions/families.ts)', () => {
  it('lists every folder that declares a family, once each', () => {
    // Prepare
    const declared = readdirSync(functionsDir, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .filter((folder) => existsSync(join(functionsDir, folder, 'family.ts')));

    // Act
    const listed = ENDPOINT_FAMILIES.map((family) => family.name);

    // Assess
    expect([...listed].sort()).toEqual([...declared].sort());
    expect(new Set(listed).size).toBe(listed.length);
  });

  it('holds exactly the rows of the route table, in its order', () => {
    expect(ENDPOINT_FAMILIES.flatMap((family) => family.routes)).toEqual(ROUTES);
  });

  it.each(ENDPOINT_FAMILIES.map((family) => [family.name, family] as const))(
    'gives family %s its own routes, a handler and every operation they name',
    (name, family) => {
      expect(family.routes.length).toBeGreaterThan(0);
      expect(family.routes.every((route) => route.family === name)).toBe(true);
      const { handler, operations } = family.entry();
      expect(handler).toBeInstanceOf(Function);
      for (const route of family.routes) expect(operations[route.operation]).toBeDefined();
    },
  );

  it('places every family that reads the search index beside the domain', () => {
    for (const { name, needs } of ENDPOINT_FAMILIES.filter((family) => family.needs.search)) {
      expect({ name, network: needs.network }).toEqual({ name, network: 'search-domain' });
    }
  });
});
