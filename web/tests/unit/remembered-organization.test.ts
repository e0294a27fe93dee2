import {
  rememberedOrganization,
  rememberOrganization,
} from '../../src/screens/sign-in/remembered-organization';

/** The little of `Storage` the memory uses, kept in a Map (jest runs without a DOM). */
class MemoryStorage implements Pick<Storage, 'getItem' | 'setItem'> {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
}

const storage = () => new MemoryStorage() as unknown as Storage & MemoryStorage;
const org = (n: number) => `org_${String(n).padStart(26, '0')}`;

describe('the organization an email last signed in to (P261)', () => {
  it('is found again whatever the case and spaces of the address', () => {
    const kept = storage();

    rememberOrganization(kept, 'Ada@Example.com', org(1));

    expect(rememberedOrganization(kept, ' ada@example.COM ')).toBe(org(1));
    expect(rememberedOrganization(kept, 'grace@example.com')).toBeNull();
  });

  it('keeps the last one per email, and only the ten most recent emails', () => {
    const kept = storage();

    rememberOrganization(kept, 'ada@example.com', org(1));
    rememberOrganization(kept, 'ada@example.com', org(2));
    for (let n = 0; n < 10; n += 1) rememberOrganization(kept, `p${n}@example.com`, org(10 + n));

    expect(rememberedOrganization(kept, 'ada@example.com')).toBeNull();
    expect(rememberedOrganization(kept, 'p9@example.com')).toBe(org(19));
    expect(JSON.parse(kept.items.values().next().value ?? '[]')).toHaveLength(10);
  });

  it('keeps nothing but an address and an org_ id, and ignores what it cannot read', () => {
    const kept = storage();

    rememberOrganization(kept, 'ada@example.com', 'not an id');
    expect(kept.items.size).toBe(0);
    kept.setItem('svc-console-sign-in-organizations', '{broken');
    expect(rememberedOrganization(kept, 'ada@example.com')).toBeNull();
    kept.setItem(
      'svc-console-sign-in-organizations',
      JSON.stringify([
        ['ada@example.com', '<script>'],
        ['bob@example.com', org(3)],
      ]),
    );
    expect(rememberedOrganization(kept, 'ada@example.com')).toBeNull();
    expect(rememberedOrganization(kept, 'bob@example.com')).toBe(org(3));
  });

  it('works without storage (a browser that refuses it)', () => {
    rememberOrganization(null, 'ada@example.com', org(1));
    expect(rememberedOrganization(null, 'ada@example.com')).toBeNull();
  });
});
