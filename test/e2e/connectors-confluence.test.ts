import { confluenceConnector } from '../support/connectors/confluence-connector';
import { connectorSuite } from '../support/connectors/connector-suite';
import { pdfOf } from '../support/documents';

const DAY_MS = 86_400_000;

/**
 * What Confluence does beyond the shared connector scenarios
 * (`connectors-scenarios.test.ts`): page attachments.
 */
describe('Confluence connector (issue 12)', () => {
  const confluence = confluenceConnector();
  const { clock, connect, indexedDocuments, createSource, ask, sync } = connectorSuite(confluence);

  it('indexes page attachments through the file parsers, follows new versions and removes deleted ones (P186)', async () => {
    const emulator = confluence.emulator();
    emulator.put({
      id: '4001',
      type: 'page',
      spaceKey: 'DOCS',
      title: 'Appliances',
      body: '<p>Manuals for the office appliances are attached.</p>',
      when: confluence.ago(3 * DAY_MS),
    });
    emulator.attach('4001', {
      id: 'att5001',
      title: 'dishwasher-manual.pdf',
      mediaType: 'application/pdf',
      bytes: await pdfOf(['Dishwasher', 'Run the dishwasher on the eco program after 6 pm.']),
      when: confluence.ago(2 * DAY_MS),
    });
    emulator.attach('4001', {
      id: 'att5002',
      title: 'floor-plan.png',
      mediaType: 'image/png',
      bytes: Buffer.from([137, 80, 78, 71]),
      when: confluence.ago(2 * DAY_MS),
    });
    const source = await createSource(confluence.spaces(['DOCS']));
    await connect(source.id);

    const status = await sync(source.id);

    expect(status).toMatchObject({ status: 'active', job_status: 'succeeded', error: null });
    // The page and its PDF; the picture is not read.
    expect((await indexedDocuments(source.id)).size).toBe(2);
    const answer = await ask(source.id, 'When should the dishwasher run?');
    expect(answer.response).toContain('eco program');
    expect(answer.sources[0]).toMatchObject({
      document_title: 'dishwasher-manual.pdf',
      document_url: expect.stringMatching(
        /^https:\/\/acme\.atlassian\.net\/wiki\/pages\/viewpageattachments\.action\?pageId=4001&preview=/,
      ),
    });
    const downloads = emulator.requests().filter((r) => r.url.includes('/child/attachment/'));
    expect(downloads.map((r) => r.url)).toEqual([
      expect.stringMatching(/\/content\/4001\/child\/attachment\/att5001\/download$/),
    ]);

    emulator.attach('4001', {
      id: 'att5001',
      title: 'dishwasher-manual.pdf',
      mediaType: 'application/pdf',
      bytes: await pdfOf(['Dishwasher', 'Run the dishwasher on the quick program before noon.']),
      when: clock.now().toISOString(),
    });
    expect(await sync(source.id)).toMatchObject({ status: 'active' });
    expect((await ask(source.id, 'When should the dishwasher run?')).response).toContain(
      'quick program',
    );

    emulator.remove('att5001');
    expect(await sync(source.id)).toMatchObject({ status: 'active' });
    expect((await indexedDocuments(source.id)).size).toBe(1);
  });
});
