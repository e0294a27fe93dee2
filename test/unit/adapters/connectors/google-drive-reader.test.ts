import {
  GoogleDriveReader,
  withoutInlineImages,
} from '../../../../layers/core/adapters/connectors/google-drive/google-drive-reader';
import { GoogleDriveOAuth } from '../../../../layers/core/adapters/connectors/google-drive/google-oauth';
import { providerFetch } from '../../../../layers/core/adapters/connectors/oauth-http';
import { ProviderApi } from '../../../../layers/core/adapters/connectors/provider-api';
import { webhookPolicy } from '../../../../layers/core/adapters/net/outbound-policy';
import { uploadedFileParser } from '../../../../layers/core/adapters/parsing/file-parser';
import type { ConnectorTokens } from '../../../../layers/core/domain/connector';
import type { DataSource } from '../../../../layers/core/domain/data-source';
import type { AccessGrant } from '../../../../layers/core/ports/connector.port';
import type { SourceItem } from '../../../../layers/core/ports/source-reader.port';
import { DRIVE_TYPES, GoogleDriveEmulator } from '../../../support/google-drive-emulator';
import { TestClock } from '../../../support/test-clock';

/**
 * The Drive reader against the loopback Drive over real HTTP (P179–P181),
 * for what the end-to-end tests do not reach: ids that need quoting in `q`,
 * folder cycles, files over the per-response cap, exports Drive refuses,
 * Google types and files it does not read, and a cursor of other folders.
 */
describe('GoogleDriveReader (P179-P181)', () => {
  const clock = new TestClock();
  const fetch = providerFetch(webhookPolicy({ allowPrivateAddresses: true }));
  let emulator: GoogleDriveEmulator;
  let oauth: GoogleDriveOAuth;
  let tokens: ConnectorTokens;

  const grant = (): AccessGrant => ({
    site: null,
    accessToken: async () => tokens.access_token,
    refresh: async () => {
      tokens = await oauth.refresh(app(), tokens);
    },
  });
  const app = () => ({ clientId: emulator.clientId, clientSecret: emulator.clientSecret });

  beforeAll(async () => {
    emulator = await new GoogleDriveEmulator(clock).start();
    oauth = new GoogleDriveOAuth(fetch, clock, {
      authBaseUrl: emulator.origin,
      tokenBaseUrl: emulator.origin,
      apiBaseUrl: emulator.origin,
    });
    const redirectUri = 'http://127.0.0.1:1/api/oauth/callback';
    const verifier = 'v'.repeat(43);
    const { createHash } = await import('node:crypto');
    const consent = await globalThis.fetch(
      oauth.authorizationUrl(app(), {
        state: 's',
        codeChallenge: createHash('sha256').update(verifier).digest('base64url'),
        redirectUri,
      }),
      { redirect: 'manual' },
    );
    const code = new URL(consent.headers.get('location') ?? '').searchParams.get('code') ?? '';
    tokens = await oauth.exchangeCode(app(), { code, codeVerifier: verifier, redirectUri });

    emulator.put({
      id: "it's",
      name: 'Quoted',
      mimeType: DRIVE_TYPES.folder,
      parents: ['root'],
      content: {},
    });
    // A cycle: a folder inside its own child.
    emulator.put({
      id: 'loop',
      name: 'Loop',
      mimeType: DRIVE_TYPES.folder,
      parents: ["it's"],
      content: {},
    });
    emulator.update("it's", { parents: ['root', 'loop'] });
    emulator.put({
      id: 'notes',
      name: 'notes.md',
      mimeType: 'text/markdown',
      parents: ['loop'],
      content: Buffer.from('# Notes\n\nThe quoted folder holds notes.'),
    });
    emulator.put({
      id: 'huge',
      name: 'huge.txt',
      mimeType: 'text/plain',
      parents: ["it's"],
      content: Buffer.alloc(10 * 1024 * 1024 + 1, 'a'),
    });
    emulator.put({
      id: 'big-doc',
      name: 'Big doc',
      mimeType: DRIVE_TYPES.doc,
      parents: ["it's"],
      content: { 'text/markdown': 'x'.repeat(10 * 1024 * 1024 + 1) },
    });
    emulator.put({
      id: 'broken',
      name: 'broken.pdf',
      mimeType: 'application/pdf',
      parents: ["it's"],
      content: Buffer.from('%PDF-1.4 not really'),
    });
    emulator.put({
      id: 'slides',
      name: 'Kick-off',
      mimeType: DRIVE_TYPES.slides,
      parents: ["it's"],
      content: { 'text/plain': 'Kick-off\nThe project starts in March.' },
    });
    emulator.put({
      id: 'shortcut',
      name: 'Shortcut',
      mimeType: 'application/vnd.google-apps.shortcut',
      parents: ["it's"],
      content: {},
    });
    emulator.put({
      id: 'zip',
      name: 'archive.zip',
      mimeType: 'application/zip',
      parents: ["it's"],
      content: Buffer.from('PK'),
    });
  });
  afterAll(() => emulator.close());

  async function readAll(
    config: Record<string, unknown>,
    cursor: string | null = null,
    indexed = false,
  ) {
    const reader = new GoogleDriveReader({ apiBaseUrl: emulator.origin }, uploadedFileParser);
    const source = { id: 'ds_x', type: 'google_drive', config } as unknown as DataSource;
    const api = new ProviderApi(fetch, grant(), clock, new AbortController().signal);
    const items: SourceItem[] = [];
    for await (const item of reader.read(source, grant(), api, {
      cursor,
      isIndexed: () => indexed,
    })) {
      items.push(item);
    }
    return items;
  }

  it('walks folders whose ids need quoting, through a cycle, and says why it skips what it cannot read', async () => {
    const items = await readAll({ folder_ids: ["it's"] });

    const inventory = items.find((item) => item.status === 'inventory');
    expect(inventory && [...inventory.keys].sort()).toEqual([
      'gdrive:big-doc',
      'gdrive:broken',
      'gdrive:huge',
      'gdrive:notes',
      'gdrive:slides',
    ]);
    const byKey = new Map(
      items.flatMap((item) => ('key' in item ? [[item.key, item] as const] : [])),
    );
    expect(byKey.get('gdrive:notes')).toMatchObject({
      status: 'ok',
      document: {
        title: 'notes.md',
        url: 'https://drive.google.com/file/d/notes/view?usp=drivesdk',
      },
    });
    expect(byKey.get('gdrive:slides')).toMatchObject({
      status: 'ok',
      document: { title: 'Kick-off' },
    });
    expect(byKey.get('gdrive:huge')).toMatchObject({ status: 'skipped', reason: 'too_large' });
    expect(byKey.get('gdrive:big-doc')).toMatchObject({
      status: 'skipped',
      reason: 'unreadable',
      detail: expect.stringContaining('too large to be exported'),
    });
    expect(byKey.get('gdrive:broken')).toMatchObject({ status: 'skipped', reason: 'unreadable' });
    // Never downloaded: the over-cap file, the shortcut, the zip.
    const urls = emulator.requests().map((request) => request.url);
    expect(urls.some((url) => url.startsWith('/drive/v3/files/huge?'))).toBe(false);
    expect(urls.some((url) => url.startsWith('/drive/v3/files/zip'))).toBe(false);
    expect(items.at(-1)).toMatchObject({ status: 'checkpoint' });
  });

  it('reads everything again when the cursor was committed for other folders', async () => {
    const first = await readAll({ folder_ids: ['loop'] });
    const cursor = first.filter((item) => item.status === 'checkpoint').at(-1);
    expect(cursor).toBeDefined();

    const same = await readAll(
      { folder_ids: ['loop'] },
      cursor?.status === 'checkpoint' ? cursor.cursor : null,
      true,
    );
    const other = await readAll(
      { folder_ids: ["it's"] },
      cursor?.status === 'checkpoint' ? cursor.cursor : null,
    );

    expect(same.filter((item) => item.status === 'ok')).toEqual([]);
    expect(other.filter((item) => item.status === 'ok').length).toBe(2);
  });

  it('lists nothing from a shared drive that is gone or not shared', async () => {
    const items = await readAll({ shared_drive_ids: ['no-such-drive'] });

    expect(items.find((item) => item.status === 'inventory')).toEqual({
      status: 'inventory',
      keys: [],
    });
  });
});

/** P179: Drive's Markdown export inlines images as base64; only the text is kept. */
describe('withoutInlineImages', () => {
  it('drops image definitions, data URIs and their references, and keeps the text', () => {
    const exported = [
      '# Floor plan',
      '',
      'The fire exit is left of the lifts. ![][image1]',
      '',
      'Inline ![plan](data:image/png;base64,iVBORw0KGgo=) here.',
      '',
      '[image1]: <data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA+/=>',
      '',
      'A last paragraph stays.',
    ].join('\n');

    const text = withoutInlineImages(Buffer.from(exported)).toString('utf8');

    expect(text).not.toMatch(/base64|image1/);
    expect(text).toContain('The fire exit is left of the lifts.');
    expect(text).toContain('A last paragraph stays.');
    expect(text).toContain('# Floor plan');
  });
});
