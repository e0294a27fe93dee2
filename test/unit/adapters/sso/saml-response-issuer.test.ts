import {
  responseIssuerOf,
  UnreadableSamlResponseError,
} from '../../../../layers/core/adapters/sso/saml-response-issuer';

const NS =
  'xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion"';
const response = (children: string, prolog = '') =>
  `${prolog}<samlp:Response ${NS} ID="_r1" Destination="https://sp.example/acs?a=1&amp;b=>2" Version="2.0">${children}<samlp:Status/></samlp:Response>`;

/**
 * P219: the Response's own `<Issuer>` (its first child, optional), read
 * from a response node-saml already parsed; what this reader does not take
 * apart is refused, never guessed at.
 */
describe('Function: responseIssuerOf (P219)', () => {
  it('reads the Issuer after the XML declaration, comments and attributes holding ">"', () => {
    const xml = response(
      '\n  <!-- the IdP -->\n  <saml:Issuer Format="urn:oasis:names:tc:SAML:2.0:nameid-format:entity">https://idp.example/saml</saml:Issuer>',
      '<?xml version="1.0" encoding="UTF-8"?>\n<!-- signed by the IdP -->\n',
    );

    expect(responseIssuerOf(xml)).toBe('https://idp.example/saml');
  });

  it('decodes entity and character references, and keeps the text exactly (no trimming)', () => {
    expect(
      responseIssuerOf(response('<Issuer>https://idp.example/?a=1&amp;b=&#x32;&#51;</Issuer>')),
    ).toBe('https://idp.example/?a=1&b=23');
    expect(responseIssuerOf(response('<saml:Issuer> https://idp.example </saml:Issuer>'))).toBe(
      ' https://idp.example ',
    );
  });

  it('answers null for a Response without an Issuer of its own (the assertion’s is elsewhere)', () => {
    const xml = response(
      '<saml:Assertion><saml:Issuer>https://idp.example</saml:Issuer></saml:Assertion>',
    );

    expect(responseIssuerOf(xml)).toBeNull();
  });

  it.each([
    [
      'not a Response',
      '<samlp:LogoutResponse ID="_1"><saml:Issuer>x</saml:Issuer></samlp:LogoutResponse>',
    ],
    [
      'a DOCTYPE',
      `<!DOCTYPE r [<!ENTITY e "https://idp.example">]>${response('<saml:Issuer>&e;</saml:Issuer>')}`,
    ],
    ['CDATA in the Issuer', response('<saml:Issuer><![CDATA[https://idp.example]]></saml:Issuer>')],
    ['a comment in the Issuer', response('<saml:Issuer>https://idp<!-- -->.example</saml:Issuer>')],
    ['an unknown entity', response('<saml:Issuer>&nbsp;https://idp.example</saml:Issuer>')],
    ['a bare ampersand', response('<saml:Issuer>https://idp.example/?a&b</saml:Issuer>')],
    ['text before the first child', response('junk<saml:Issuer>https://idp.example</saml:Issuer>')],
    ['an Issuer not closed', response('<saml:Issuer>https://idp.example</saml:IssuerX>')],
    ['unquoted attributes', '<samlp:Response ID=_1><saml:Issuer>x</saml:Issuer></samlp:Response>'],
    ['nothing at all', ''],
  ])('refuses %s', (_case, xml) => {
    expect(() => responseIssuerOf(xml)).toThrow(UnreadableSamlResponseError);
  });
});
