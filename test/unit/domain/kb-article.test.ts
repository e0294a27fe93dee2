import { isId, newId } from '../../../layers/core/domain/ids';
import {
  kbContentHash,
  kbDataSourceIdFor,
  kbVersionPath,
  newKbDataSource,
} from '../../../layers/core/domain/kb-article';

describe('Knowledge-base articles (domain)', () => {
  describe('kbDataSourceIdFor (P115)', () => {
    it('derives a well-formed data source id from the organization id, the same every time', () => {
      const orgId = newId('organization', Date.UTC(2026, 10, 24));

      const id = kbDataSourceIdFor(orgId);

      expect(isId('dataSource', id)).toBe(true);
      expect(kbDataSourceIdFor(orgId)).toBe(id);
    });

    it('sorts with the organization’s creation (D1): the ULID time part is the organization’s', () => {
      const orgId = newId('organization', Date.UTC(2026, 10, 24));

      expect(kbDataSourceIdFor(orgId).slice(3, 13)).toBe(orgId.slice(4, 14));
    });

    it('differs between organizations created in the same millisecond', () => {
      const at = Date.UTC(2026, 10, 24);
      const ids = new Set(
        Array.from({ length: 50 }, () => kbDataSourceIdFor(newId('organization', at))),
      );

      expect(ids.size).toBe(50);
    });
  });

  it('builds the built-in source as manual and pending, of type kb', () => {
    const orgId = newId('organization');
    const now = new Date('2026-11-24T05:00:00.000Z');

    expect(newKbDataSource(orgId, now)).toEqual({
      id: kbDataSourceIdFor(orgId),
      type: 'kb',
      name: 'Knowledge base',
      config: {},
      sync_frequency: 'manual',
      next_sync_at: null,
      status: 'pending',
      chunks_indexed: 0,
      created_at: '2026-11-24T05:00:00.000Z',
      updated_at: '2026-11-24T05:00:00.000Z',
      current_job: null,
      last_job: null,
    });
  });

  it('addresses a citation at the version indexed (P120)', () => {
    expect(kbVersionPath('kb_01jf3', 3)).toBe('/api/v1/kb/kb_01jf3/versions/3');
  });

  it('hashes what is indexed: a new version changes the hash even with the same text', () => {
    const first = kbContentHash({ version: 1, title: 'T', content: 'c' });

    expect(kbContentHash({ version: 1, title: 'T', content: 'c' })).toBe(first);
    expect(kbContentHash({ version: 2, title: 'T', content: 'c' })).not.toBe(first);
    expect(kbContentHash({ version: 1, title: 'T2', content: 'c' })).not.toBe(first);
  });
});
