import { pdfOf } from '../documents';
import { minimalDocx } from '../hostile-files';
import { MicrosoftGraphEmulator } from '../microsoft-graph-emulator';
import type { ConnectorAdapter } from './connector-adapter';

const HOUR_MS = 3_600_000;
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const KB = 'https://acme.sharepoint.com/sites/kb';

/**
 * SharePoint (OneDrive for Business) behind a loopback Microsoft
 * (`MicrosoftGraphEmulator`): the chosen library holds a DOCX, a PDF and two
 * text files in nested folders, and a picture; a second library (Archive)
 * is not chosen.
 */
export function sharepointConnector() {
  let graph: MicrosoftGraphEmulator;
  let library = '';
  let archive = '';
  const requestsSince = (mark: number) => graph.requests().slice(mark);
  const downloads = (mark: number) =>
    requestsSince(mark).filter((r) => r.url.startsWith('/download/'));

  const connector: ConnectorAdapter = {
    name: 'SharePoint',
    type: 'sharepoint',
    eventType: 'SHAREPOINT',
    offlineConfig: { site_url: KB },
    notConfigured: /SharePoint \(Microsoft\) app is not configured/,

    async start(clock) {
      graph = await new MicrosoftGraphEmulator(clock).start();
      return {
        SVC_SHAREPOINT_CLIENT_ID: graph.clientId,
        SVC_SHAREPOINT_CLIENT_SECRET: graph.clientSecret,
        SVC_MICROSOFT_AUTH_URL: graph.authUrl,
        SVC_MICROSOFT_GRAPH_URL: graph.graphUrl,
      };
    },
    async seed() {
      library = graph.addDrive('Shared Documents');
      archive = graph.addDrive('Archive');
      graph.putFile(
        library,
        'Policies/HR/Handbook.docx',
        minimalDocx([
          'Parental leave',
          'Parents may take twenty weeks of paid leave, starting any time in the first year.',
        ]),
        DOCX,
      );
      graph.putFile(
        library,
        'Manuals/Kettle warranty.pdf',
        await pdfOf(['Warranty', 'The kettle warranty lasts two years from delivery.']),
        'application/pdf',
      );
      graph.putFile(
        library,
        'wifi.txt',
        'The guest wifi password rotates every Monday at nine.',
        'text/plain',
      );
      graph.putFile(
        library,
        'Office plants.txt',
        'The ficus by the window is watered on Fridays.',
        'text/plain',
      );
      graph.putFile(library, 'Pictures/team.png', Buffer.from([137, 80, 78, 71]), 'image/png');
      graph.putFile(
        archive,
        'old.txt',
        'An archived fact about the basement boiler.',
        'text/plain',
      );
    },
    close: () => graph.close(),
    config: () => ({ site_url: graph.siteUrl, drive_ids: [library] }),
    requestCount: () => graph.requests().length,
    issuedTokens: () => graph.issuedTokens(),

    signIn: {
      authorizeEndpoint: () => `${graph.authUrl}/oauth2/v2.0/authorize`,
      authorizeParams: (serviceUrl) => ({
        client_id: graph.clientId,
        response_type: 'code',
        response_mode: 'query',
        code_challenge_method: 'S256',
        redirect_uri: `${serviceUrl}/api/oauth/callback`,
        scope: 'offline_access Files.Read.All Sites.Read.All',
      }),
      lastCodeExchange: () =>
        Object.fromEntries(
          new URLSearchParams(
            graph
              .requests()
              .filter((r) => r.url.endsWith('/oauth2/v2.0/token'))
              .at(-1)?.body,
          ),
        ),
      // A confidential client: the secret goes in the form, with the scopes again.
      expectedCodeExchange: () => ({
        grant_type: 'authorization_code',
        client_secret: graph.clientSecret,
        code_verifier: expect.stringMatching(/^[\w-]{43}$/),
        scope: expect.stringContaining('offline_access'),
      }),
      refuseConsent: (refuse) => {
        graph.denyConsent = refuse;
      },
    },

    firstSync: {
      documents: 4,
      error: null,
      questions: [
        {
          question: 'How many weeks of parental leave do parents get?',
          expectAnswer: (answer) => {
            expect(answer.response).toContain('twenty weeks');
            const handbook = graph.itemIdAt(library, 'Policies/HR/Handbook.docx');
            expect(answer.sources[0]).toMatchObject({
              document_title: 'Handbook.docx',
              document_url: graph.webUrlOf(library, handbook),
            });
            expect(answer.sources[0].document_url).toBe(
              `${KB}/Shared%20Documents/Policies/HR/Handbook.docx`,
            );
          },
        },
        {
          question: 'How long does the kettle warranty last?',
          expectAnswer: (answer) => {
            expect(answer.response).toContain('two years');
            expect(answer.sources[0].document_url).toContain('Kettle%20warranty.pdf');
          },
        },
      ],
      // Downloads go to the pre-authenticated address without the bearer token; the other library is not read.
      expectReads: (mark) => {
        expect(downloads(mark).length).toBe(4);
        expect(downloads(mark).every((r) => r.authorization === null)).toBe(true);
        expect(requestsSince(mark).some((r) => r.url.includes(archive))).toBe(false);
      },
    },

    change: {
      apply: () => {
        graph.putFile(
          library,
          'wifi.txt',
          'The guest wifi password now rotates every Thursday at ten.',
          'text/plain',
        );
        graph.rename(
          library,
          graph.itemIdAt(library, 'Policies/HR/Handbook.docx'),
          'Employee handbook.docx',
        );
      },
      documents: 2,
      // From the stored delta link; only the two changed files are downloaded again.
      expectReads: (mark) => {
        const wifi = graph.itemIdAt(library, 'wifi.txt');
        expect(requestsSince(mark).some((r) => r.url.includes('/root/delta?token='))).toBe(true);
        expect(downloads(mark).length).toBe(2);
        expect(requestsSince(mark).some((r) => r.url.includes(`/items/${wifi}/content`))).toBe(
          true,
        );
      },
      questions: [
        {
          question: 'How many weeks of parental leave do parents get?',
          expectAnswer: (answer) =>
            expect(answer.sources[0]).toMatchObject({
              document_title: 'Employee handbook.docx',
              document_url: `${KB}/Shared%20Documents/Policies/HR/Employee%20handbook.docx`,
            }),
        },
        {
          question: 'When does the guest wifi password rotate?',
          expectAnswer: (answer) => expect(answer.response).toContain('Thursday'),
        },
      ],
    },

    deletion: {
      apply: () => graph.remove(library, graph.itemIdAt(library, 'Office plants.txt')),
      documents: 1,
      question: 'When is the ficus watered?',
      goneTitle: 'Office plants.txt',
    },

    accessToken: {
      lifetimeMs: HOUR_MS,
      refreshAndFirstRead: (mark) => {
        const during = requestsSince(mark);
        return {
          refresh: during.findIndex(
            (r) =>
              r.url.endsWith('/oauth2/v2.0/token') && r.body.includes('grant_type=refresh_token'),
          ),
          firstRead: during.findIndex((r) => r.url.startsWith('/v1.0/')),
        };
      },
    },

    rateLimitNext: (count) => graph.throttleNext(count, '1', 429),

    crash: {
      async seed() {
        const drive = graph.addDrive('Operations');
        for (let n = 0; n < 7; n += 1) {
          graph.putFile(
            drive,
            `Hall ${n}/generator.txt`,
            `The generator in hall ${n} is tested on day ${n + 1} of each month.`,
            'text/plain',
          );
        }
        return { site_url: graph.siteUrl, drive_ids: [drive] };
      },
      documents: 7,
      // Later pages of the full enumeration fail: the attempt throws after committing page one.
      // Pages of ten: the root, the seven folders and two files come first.
      breakMidway: () => {
        graph.pageSize = 10;
        graph.failOn((url) => {
          const token = url.pathname.endsWith('/root/delta') ? url.searchParams.get('token') : null;
          if (!token) return false;
          const decoded = JSON.parse(Buffer.from(token, 'base64url').toString());
          return decoded.select === null && decoded.offset > 0;
        });
      },
      heal: () => {
        graph.pageSize = 3;
        graph.failOn(null);
      },
      indexedBeforeCrash: null,
      // From the committed nextLink: what was indexed before the crash is not downloaded again.
      expectResumed: (mark, indexedBeforeCrash) =>
        expect(downloads(mark).length).toBe(7 - indexedBeforeCrash),
    },

    revokeAccess: () => graph.revokeEverything(),
    revokedError: /invalid_grant/,

    // Microsoft has no endpoint to revoke one app's grant: people remove it at My Apps.
    revocation: { atProvider: false, whereToRemove: 'https://myapps.microsoft.com' },
  };
  return {
    ...connector,
    emulator: () => graph,
    library: () => library,
    archive: () => archive,
    downloads,
  };
}
