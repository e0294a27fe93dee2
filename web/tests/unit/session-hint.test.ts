import {
  forgetSignedIn,
  mustAskWhoIsSignedIn,
  rememberSignedIn,
} from '../../src/state/session-hint';

/** The little of `Storage` the hint uses, kept in a Map (jest runs without a DOM). */
class MemoryStorage {
  readonly items = new Map<string, string>();
  getItem(key: string) {
    return this.items.get(key) ?? null;
  }
  setItem(key: string, value: string) {
    this.items.set(key, value);
  }
  removeItem(key: string) {
    this.items.delete(key);
  }
}

const refusing = {
  getItem: () => {
    throw new Error('SecurityError');
  },
  setItem: () => {
    throw new Error('SecurityError');
  },
  removeItem: () => {
    throw new Error('SecurityError');
  },
};

describe('asking who is signed in on start', () => {
  it('always asks on a page other than sign-in (a single sign-on returns there)', () => {
    expect(mustAskWhoIsSignedIn('/agents', '/sign-in', new MemoryStorage())).toBe(true);
    expect(mustAskWhoIsSignedIn('/', '/sign-in', new MemoryStorage())).toBe(true);
  });

  it('does not ask on sign-in in a browser that was not signed in', () => {
    expect(mustAskWhoIsSignedIn('/sign-in', '/sign-in', new MemoryStorage())).toBe(false);
  });

  it('asks on sign-in once the browser was signed in, and no more after signing out', () => {
    const storage = new MemoryStorage();

    rememberSignedIn(storage);
    expect(mustAskWhoIsSignedIn('/sign-in', '/sign-in', storage)).toBe(true);

    forgetSignedIn(storage);
    expect(mustAskWhoIsSignedIn('/sign-in', '/sign-in', storage)).toBe(false);
  });

  it('asks when the browser keeps nothing or refuses its storage', () => {
    expect(mustAskWhoIsSignedIn('/sign-in', '/sign-in', null)).toBe(true);
    expect(mustAskWhoIsSignedIn('/sign-in', '/sign-in', refusing)).toBe(true);
    expect(() => rememberSignedIn(refusing)).not.toThrow();
    expect(() => forgetSignedIn(refusing)).not.toThrow();
  });
});
