import fc from 'fast-check';
import {
  isGraphLink,
  siteLookupUrl,
} from '../../../../layers/core/adapters/connectors/sharepoint/graph-urls';

const GRAPH = 'https://graph.microsoft.com/v1.0';

/** P183, P185: customer values become Graph path segments only; tokens follow Graph's own links only. */
describe('Microsoft Graph addresses (P183, P185)', () => {
  it.each([
    ['https://contoso.sharepoint.com/sites/kb', `${GRAPH}/sites/contoso.sharepoint.com:/sites/kb`],
    ['https://contoso.sharepoint.com/sites/kb/', `${GRAPH}/sites/contoso.sharepoint.com:/sites/kb`],
    ['https://contoso.sharepoint.com', `${GRAPH}/sites/contoso.sharepoint.com`],
    [
      'https://contoso-my.sharepoint.com/personal/jane_contoso_com',
      `${GRAPH}/sites/contoso-my.sharepoint.com:/personal/jane_contoso_com`,
    ],
    [
      'https://contoso.sharepoint.com/sites/Team%20Site',
      `${GRAPH}/sites/contoso.sharepoint.com:/sites/Team%20Site`,
    ],
  ])('looks up the site at %s', (siteUrl, expected) => {
    expect(siteLookupUrl(GRAPH, siteUrl)).toBe(expected);
  });

  it('never lets a site address leave Graph or change the request', () => {
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: true, withFragments: true }), (siteUrl) => {
        const lookup = siteLookupUrl(GRAPH, siteUrl);
        if (lookup === null) return;
        const url = new URL(lookup);
        expect(url.origin).toBe('https://graph.microsoft.com');
        expect(url.pathname.startsWith('/v1.0/sites/')).toBe(true);
        expect(url.search).toBe('');
        expect(url.hash).toBe('');
      }),
    );
  });

  it('follows only links under the configured Graph address', () => {
    expect(isGraphLink(GRAPH, `${GRAPH}/drives/b!x/root/delta?token=abc`)).toBe(true);
    expect(isGraphLink(GRAPH, 'https://graph.microsoft.com/beta/drives/x')).toBe(false);
    expect(isGraphLink(GRAPH, 'https://evil.example/v1.0/drives/x')).toBe(false);
    expect(isGraphLink(GRAPH, 'http://graph.microsoft.com/v1.0/drives/x')).toBe(false);
    expect(isGraphLink(GRAPH, '/v1.0/drives/x')).toBe(false);
    expect(isGraphLink(GRAPH, null)).toBe(false);
  });
});
