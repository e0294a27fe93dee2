import { CONSOLE_LINKS } from '../../src/navigation/return-path';

describe('CONSOLE_LINKS: the links the console routes itself', () => {
  it.each([
    '/agents',
    '/settings/sso?tested=1',
    '/',
    '?page=2',
    '/apis',
    'https://console.test/kb',
  ])('routes %s in the console', (href) => expect(CONSOLE_LINKS.test(href)).toBe(true));

  it.each(['/api/v1/sso/start?org_id=org_1', 'https://console.test/api/v1/sso/start'])(
    'leaves %s to the browser (the service answers it)',
    (href) => expect(CONSOLE_LINKS.test(href)).toBe(false),
  );
});
