import {
  dummyPasswordHash,
  hashPassword,
  needsRehash,
  SCRYPT_PARAMETERS,
  verifyPassword,
} from '../../../layers/core/domain/password';

describe('Passwords (P62)', () => {
  it('hashes with scrypt, recording the parameters and a fresh salt in the hash', async () => {
    const first = await hashPassword('correct horse battery');
    const second = await hashPassword('correct horse battery');

    expect(first).toMatch(/^scrypt\$ln=15,r=8,p=1\$[A-Za-z0-9_-]+\$[A-Za-z0-9_-]+$/);
    expect(first).not.toBe(second);
  });

  it('verifies the right password and refuses a wrong one', async () => {
    const stored = await hashPassword('correct horse battery');

    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('reads hashes made with other parameters, and says they need rehashing when weaker', async () => {
    const weaker = await hashPassword('correct horse battery', { logN: 12, r: 8, p: 1 });

    expect(await verifyPassword('correct horse battery', weaker)).toBe(true);
    expect(needsRehash(weaker)).toBe(true);
    expect(needsRehash(await hashPassword('x'.repeat(12)))).toBe(false);
  });

  it('never matches a hash it cannot read, or one asking for absurd memory', async () => {
    const planted = `scrypt$ln=30,r=8,p=1$${'A'.repeat(22)}$${'B'.repeat(43)}`;

    expect(await verifyPassword('anything', 'not a hash')).toBe(false);
    expect(await verifyPassword('anything', planted)).toBe(false);
  });

  it('keeps one dummy hash to spend the same time on unknown accounts', async () => {
    const dummy = await dummyPasswordHash();

    expect(await dummyPasswordHash()).toBe(dummy);
    expect(dummy.startsWith(`scrypt$ln=${SCRYPT_PARAMETERS.logN},`)).toBe(true);
  });
});
