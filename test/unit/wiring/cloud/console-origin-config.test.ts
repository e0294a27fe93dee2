import { parseCloudConfig } from '../../../../layers/core/config';

describe('Cloud config: console (P236)', () => {
  it('reads the console’s https origin', () => {
    expect(
      parseCloudConfig('console', { SVC_CONSOLE_ORIGIN: 'https://d111111abcdef8.cloudfront.net' }),
    ).toEqual({ SVC_CONSOLE_ORIGIN: 'https://d111111abcdef8.cloudfront.net' });
  });

  it('leaves it unset when the stack sets none (the origin check then takes the API’s own only)', () => {
    expect(parseCloudConfig('console', {})).toEqual({ SVC_CONSOLE_ORIGIN: undefined });
  });

  it.each([
    ['a path', 'https://console.example.com/app'],
    ['a trailing slash', 'https://console.example.com/'],
    ['upper case, which no browser sends', 'https://Console.example.com'],
    ['plain http', 'http://console.example.com'],
    ['no scheme', 'console.example.com'],
  ])('refuses %s, naming the variable', (_case, value) => {
    expect(() => parseCloudConfig('console', { SVC_CONSOLE_ORIGIN: value })).toThrow(
      /Invalid function configuration \(console\): SVC_CONSOLE_ORIGIN/,
    );
  });
});
