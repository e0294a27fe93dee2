import fc from 'fast-check';
import { connectorSuite } from '../support/connectors/connector-suite';
import { sharepointConnector } from '../support/connectors/sharepoint-connector';
import { expectNestedError } from '../support/error-shapes';
import { json } from '../support/http-client';
import { REFILL_ALL_BUCKETS_MS } from '../support/test-clock';

/**
 * What SharePoint does beyond the shared connector scenarios
 * (`connectors-scenarios.test.ts`): the config checked at the edge, a site
 * the account cannot open, deleted folders, 503s, an expired delta token,
 * every library of a site, and files skipped by size or type.
 */
describe('SharePoint connector (issue 12)', () => {
  const sharepoint = sharepointConnector();
  const { clock, call, connect, sourceOf, indexedDocuments, createSource, ask, sync } =
    connectorSuite(sharepoint);

  it('answers any sharepoint config with 201 (an https site_url, echoed) or a 400 in the nested shape (P183)', async () => {
    const text = fc.oneof(
      fc.string({ maxLength: 80 }),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom('https://acme.sharepoint.com/sites/kb', 'http://acme.sharepoint.com', ''),
    );
    const config = fc.record(
      {
        site_url: fc.oneof(text, fc.integer(), fc.constant(null)),
        drive_ids: fc.oneof(fc.array(text, { maxLength: 4 }), text, fc.constant(null)),
        extra: fc.string(),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(config, async (value) => {
        clock.advance(REFILL_ALL_BUCKETS_MS);
        const response = await call('/api/v1/data-sources', {
          method: 'POST',
          body: { type: 'sharepoint', name: 'Fuzzed', config: value },
        });
        if (response.status === 201) {
          expect(json(response).config).toEqual(value);
          expect(String(value.site_url)).toMatch(/^https:\/\//);
        } else {
          expectNestedError(response, 400, 'invalid_request');
        }
      }),
      { numRuns: 40 },
    );
  });

  it('fails the sign-in with the reason when the account cannot open the site (P183)', async () => {
    const source = await createSource({ site_url: 'https://acme.sharepoint.com/sites/hr' });

    const page = await connect(source.id);

    expect(page.status).toBe(400);
    expect(page.text).toContain('cannot open the site https://acme.sharepoint.com/sites/hr');
    expect((await sourceOf(source.id)).connection_status).toBe('Disconnected');
  });

  describe('syncs', () => {
    let sourceId: string;

    beforeAll(async () => {
      sourceId = (await createSource()).id;
      expect((await connect(sourceId)).status).toBe(200);
      await sync(sourceId);
    });

    it('removes every file of a deleted folder', async () => {
      const graph = sharepoint.emulator();
      const library = sharepoint.library();
      const before = (await indexedDocuments(sourceId)).size;
      graph.putFile(
        library,
        'Temp/a.txt',
        'Temporary note about the parking garage.',
        'text/plain',
      );
      graph.putFile(
        library,
        'Temp/b.md',
        '# Lunch\n\nLunch is served at noon on the terrace.',
        'text/markdown',
      );
      await sync(sourceId);
      expect((await indexedDocuments(sourceId)).size).toBe(before + 2);

      graph.remove(library, graph.itemIdAt(library, 'Temp'));
      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(before);
    });

    it('waits out a 503 answer as Retry-After says, and the edit arrives (P152)', async () => {
      const graph = sharepoint.emulator();
      graph.putFile(
        sharepoint.library(),
        'wifi.txt',
        'The guest wifi password rotates every Friday.',
        'text/plain',
      );
      graph.throttleNext(1, '1', 503);
      const before = sharepoint.requestCount();

      expect(await sync(sourceId)).toMatchObject({ status: 'active', job_status: 'succeeded' });

      // The throttled request was sent again.
      expect(sharepoint.requestCount() - before).toBeGreaterThan(2);
      expect((await ask(sourceId, 'When does the guest wifi password rotate?')).response).toContain(
        'Friday',
      );
    });

    it('starts again from a full enumeration when Graph answers 410 for an expired token (P185)', async () => {
      const graph = sharepoint.emulator();
      const before = (await indexedDocuments(sourceId)).size;
      graph.expireDeltaTokens();
      graph.putFile(
        sharepoint.library(),
        'new.txt',
        'The new coffee machine is on the third floor.',
        'text/plain',
      );

      const status = await sync(sourceId);

      expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
      expect((await indexedDocuments(sourceId)).size).toBe(before + 1);
    });
  });

  it('reads every library of the site when drive_ids is omitted (P183)', async () => {
    const source = await createSource({ site_url: sharepoint.emulator().siteUrl });
    await connect(source.id);

    const status = await sync(source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    const answer = await ask(source.id, 'What is the archived fact about the boiler?');
    expect(answer.sources[0].document_url).toBe(
      'https://acme.sharepoint.com/sites/kb/Archive/old.txt',
    );
  });

  it('skips files over 50 MiB without downloading them, and files of other types entirely (P184)', async () => {
    const graph = sharepoint.emulator();
    const drive = graph.addDrive('Media');
    const huge = graph.putFile(drive, 'huge.pdf', '%PDF-1.4', 'application/pdf', 60 * 1024 * 1024);
    const clip = graph.putFile(drive, 'clip.mp4', Buffer.alloc(16), 'video/mp4');
    graph.putFile(
      drive,
      'notes.md',
      '# Studio\n\nThe studio is booked on Wednesdays.',
      'text/markdown',
    );
    const source = await createSource({ site_url: graph.siteUrl, drive_ids: [drive] });
    await connect(source.id);

    const status = await sync(source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded' });
    expect(status.error).toMatch(/1 document\(s\) skipped, e\.g\. .*huge\.pdf has 62914560 bytes/);
    expect((await indexedDocuments(source.id)).size).toBe(1);
    const contents = graph.requests().filter((r) => r.url.includes('/content'));
    expect(contents.some((r) => r.url.includes(huge))).toBe(false);
    expect(contents.some((r) => r.url.includes(clip))).toBe(false);
  });
});
