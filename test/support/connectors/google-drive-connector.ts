import { pdfOf } from '../documents';
import { DRIVE_TYPES, GoogleDriveEmulator } from '../google-drive-emulator';
import { minimalDocx } from '../hostile-files';
import type { ConnectorAdapter } from './connector-adapter';

const HOUR_MS = 3_600_000;
export const DRIVE_SCOPE = 'https://www.googleapis.com/auth/drive.readonly';

/**
 * Google Drive behind a loopback Google (`GoogleDriveEmulator`): the chosen
 * folder holds a Doc, a Sheet, an image and a form, and a subfolder with a
 * PDF and a DOCX; an HR folder and a shared drive are outside it.
 */
export function googleDriveConnector() {
  let emulator: GoogleDriveEmulator;
  /** The Drive API calls since `mark`. */
  const driveCallsSince = (mark: number) =>
    emulator
      .requests()
      .slice(mark)
      .filter((r) => r.url.startsWith('/drive/v3/'))
      .map((r) => new URL(r.url, emulator.origin));

  const connector: ConnectorAdapter = {
    name: 'Google Drive',
    type: 'google_drive',
    eventType: 'GOOGLE_DRIVE',
    offlineConfig: { folder_ids: ['1AbC'] },
    notConfigured: /Google Drive app is not configured/,

    async start(clock) {
      emulator = await new GoogleDriveEmulator(clock).start();
      return {
        SVC_GOOGLE_DRIVE_CLIENT_ID: emulator.clientId,
        SVC_GOOGLE_DRIVE_CLIENT_SECRET: emulator.clientSecret,
        SVC_GOOGLE_AUTH_URL: emulator.origin,
        SVC_GOOGLE_TOKEN_URL: emulator.origin,
        SVC_GOOGLE_API_URL: emulator.origin,
      };
    },
    async seed() {
      const folder = { mimeType: DRIVE_TYPES.folder, content: {} };
      emulator.put({ ...folder, id: 'fold-eng', name: 'Engineering', parents: ['root'] });
      emulator.put({ ...folder, id: 'fold-sub', name: 'Manuals', parents: ['fold-eng'] });
      emulator.put({ ...folder, id: 'fold-hr', name: 'HR', parents: ['root'] });
      emulator.put({
        id: 'doc-runbook',
        name: 'Deploy runbook',
        mimeType: DRIVE_TYPES.doc,
        parents: ['fold-eng'],
        content: {
          'text/markdown':
            '# Rollback\n\nTo roll back a deploy, run the pipeline named **undo-release** and wait for the canary.\n',
          'text/plain': 'Rollback\nTo roll back a deploy, run the pipeline named undo-release.',
        },
      });
      emulator.put({
        id: 'sheet-oncall',
        name: 'On-call rota',
        mimeType: DRIVE_TYPES.sheet,
        parents: ['fold-eng'],
        content: { 'text/csv': 'week,engineer\n1,Ada Lovelace\n2,Grace Hopper\n' },
      });
      emulator.put({
        id: 'file-pdf',
        name: 'Generator manual.pdf',
        mimeType: 'application/pdf',
        parents: ['fold-sub'],
        content: await pdfOf(['The backup generator in hall 7 is tested every first Monday.']),
      });
      emulator.put({
        id: 'file-docx',
        name: 'Badge policy.docx',
        mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
        parents: ['fold-sub'],
        content: minimalDocx(['Visitor badges are returned to reception before 6 pm.']),
      });
      emulator.put({
        id: 'file-png',
        name: 'diagram.png',
        mimeType: 'image/png',
        parents: ['fold-eng'],
        content: Buffer.from('89504e470d0a1a0a', 'hex'),
      });
      emulator.put({
        id: 'form-1',
        name: 'Feedback form',
        mimeType: DRIVE_TYPES.form,
        parents: ['fold-eng'],
        content: {},
      });
      emulator.put({
        id: 'doc-salaries',
        name: 'Salaries',
        mimeType: DRIVE_TYPES.doc,
        parents: ['fold-hr'],
        content: { 'text/markdown': 'Not in a chosen folder: never read.' },
      });
      emulator.put({
        id: 'doc-shared',
        name: 'Shared drive handbook',
        mimeType: DRIVE_TYPES.doc,
        parents: ['drive-ops'],
        driveId: 'drive-ops',
        content: {
          'text/markdown':
            '# Pager\n\nThe pager escalates after 15 minutes without an acknowledgement.',
        },
      });
    },
    close: () => emulator.close(),
    config: () => ({ folder_ids: ['fold-eng'] }),
    requestCount: () => emulator.requests().length,
    issuedTokens: () => emulator.issuedTokens(),

    signIn: {
      authorizeEndpoint: () => `${emulator.origin}/o/oauth2/v2/auth`,
      // Offline access with consent, so that Google returns a refresh token; Drive read-only, nothing more.
      authorizeParams: (serviceUrl) => ({
        client_id: emulator.clientId,
        response_type: 'code',
        scope: DRIVE_SCOPE,
        access_type: 'offline',
        prompt: 'consent',
        code_challenge_method: 'S256',
        redirect_uri: `${serviceUrl}/api/oauth/callback`,
      }),
      lastCodeExchange: () =>
        Object.fromEntries(
          new URLSearchParams(
            emulator
              .requests()
              .filter((r) => r.url === '/token')
              .at(-1)?.body,
          ),
        ),
      expectedCodeExchange: () => ({
        grant_type: 'authorization_code',
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
      }),
      refuseConsent: (refuse) => {
        emulator.denyConsent = refuse;
      },
    },

    firstSync: {
      documents: 4,
      error: null,
      questions: [
        {
          question: 'How do I roll back a deploy?',
          expectAnswer: (answer) => {
            expect(answer.response).toContain('undo-release');
            expect(answer.sources[0]).toMatchObject({
              document_title: 'Deploy runbook',
              document_url: 'https://docs.google.com/document/d/doc-runbook/edit?usp=drivesdk',
            });
          },
        },
        {
          question: 'When is the backup generator in hall 7 tested?',
          expectAnswer: (answer) =>
            expect(answer.sources[0]).toMatchObject({
              document_title: 'Generator manual.pdf',
              document_url: 'https://drive.google.com/file/d/file-pdf/view?usp=drivesdk',
            }),
        },
      ],
      expectReads: (mark) => {
        const calls = driveCallsSince(mark);
        // Google types exported to text formats, other files downloaded; the image and the form left alone.
        const exports = calls.filter((url) => url.pathname.endsWith('/export'));
        expect(
          exports.map((url) => [url.pathname, url.searchParams.get('mimeType')]).sort(),
        ).toEqual([
          ['/drive/v3/files/doc-runbook/export', 'text/markdown'],
          ['/drive/v3/files/sheet-oncall/export', 'text/csv'],
        ]);
        const downloads = calls.filter((url) => url.searchParams.get('alt') === 'media');
        expect(downloads.map((url) => url.pathname).sort()).toEqual([
          '/drive/v3/files/file-docx',
          '/drive/v3/files/file-pdf',
        ]);
        expect(calls.some((url) => url.pathname.includes('salaries'))).toBe(false);
        expect(calls.some((url) => url.pathname === '/drive/v3/changes/startPageToken')).toBe(true);
      },
    },

    change: {
      apply: () => {
        emulator.update('doc-runbook', {
          content: {
            'text/markdown':
              '# Rollback\n\nTo roll back a deploy, run the pipeline named **undo-release-v2** and wait for the canary.\n',
          },
        });
        emulator.update('sheet-oncall', { name: 'On-call rota 2027' });
      },
      documents: 2,
      // What the Changes API said changed, from the stored page token: two exports, no download.
      expectReads: (mark) => {
        const calls = driveCallsSince(mark);
        const changes = calls.filter((url) => url.pathname === '/drive/v3/changes');
        expect(changes[0]?.searchParams.get('pageToken')).toMatch(/^\d+$/);
        expect(calls.filter((url) => url.pathname.endsWith('/export')).length).toBe(2);
        expect(calls.some((url) => url.searchParams.get('alt') === 'media')).toBe(false);
      },
      questions: [
        {
          question: 'Who is on call in week 2?',
          expectAnswer: (answer) =>
            expect(answer.sources[0]).toMatchObject({
              document_title: 'On-call rota 2027',
              document_url: 'https://docs.google.com/spreadsheets/d/sheet-oncall/edit?usp=drivesdk',
            }),
        },
      ],
    },

    // The three ways a file leaves: trashed, moved out of the chosen folders, deleted for good.
    deletion: {
      apply: () => {
        emulator.update('file-pdf', { trashed: true });
        emulator.update('file-docx', { parents: ['fold-hr'] });
        emulator.remove('sheet-oncall');
      },
      documents: 3,
      question: 'When is the backup generator in hall 7 tested?',
      goneTitle: 'Generator manual.pdf',
    },

    accessToken: {
      lifetimeMs: HOUR_MS,
      refreshAndFirstRead: (mark) => {
        const during = emulator.requests().slice(mark);
        return {
          refresh: during.findIndex(
            (r) => r.url === '/token' && r.body.includes('grant_type=refresh_token'),
          ),
          firstRead: during.findIndex((r) => r.url.startsWith('/drive/v3/')),
        };
      },
    },

    rateLimitNext: (count) => emulator.rateLimitNext(count, 429, '1'),

    crash: {
      async seed() {
        emulator.put({
          id: 'fold-many',
          name: 'Many',
          mimeType: DRIVE_TYPES.folder,
          parents: ['root'],
          content: {},
        });
        for (let n = 10; n < 22; n += 1) {
          emulator.put({
            id: `doc-many-${n}`,
            name: `Fact ${n}`,
            mimeType: DRIVE_TYPES.doc,
            parents: ['fold-many'],
            content: {
              'text/markdown': `Fact number ${n}: the boiler in block ${n} is serviced in spring.`,
            },
          });
        }
        return { folder_ids: ['fold-many'] };
      },
      documents: 12,
      breakMidway: () =>
        emulator.failOn((url) => url.pathname === '/drive/v3/files/doc-many-21/export'),
      heal: () => emulator.failOn(null),
      indexedBeforeCrash: 11,
      expectResumed: (mark) => {
        const exported = driveCallsSince(mark)
          .filter((url) => url.pathname.endsWith('/export'))
          .map((url) => url.pathname);
        // Checkpointed after ten files: the eleventh (indexed, not checkpointed) and twelfth are read again.
        expect(exported).toEqual([
          '/drive/v3/files/doc-many-20/export',
          '/drive/v3/files/doc-many-21/export',
        ]);
      },
    },

    revokeAccess: () => emulator.revokeEverything(),
    revokedError: /invalid_grant/,

    revocation: {
      atProvider: true,
      liveGrants: () => emulator.activeRefreshTokens().length,
      // Google revokes by the refresh token (1//0…), form-encoded.
      expectRevoked: (mark, count) => {
        const revokes = emulator
          .requests()
          .slice(mark)
          .filter((r) => r.url === '/revoke');
        expect(revokes).toHaveLength(count);
        for (const revoke of revokes) {
          expect(new URLSearchParams(revoke.body).get('token')).toMatch(/^1\/\/0/);
        }
      },
    },
  };
  return { ...connector, emulator: () => emulator, driveCallsSince };
}
