import { parseLocalConfig } from '../../../../lib/local/local-config';

/** P150, P159: a connector app's settings come in pairs; a stand-in's address must be a URL. */
describe('local connector settings (P150, P159)', () => {
  it('takes the Slack app as a pair, with an optional Slack address', () => {
    const config = parseLocalConfig({
      SVC_SLACK_CLIENT_ID: '123.456',
      SVC_SLACK_CLIENT_SECRET: 'secret',
      SVC_SLACK_URL: 'http://127.0.0.1:4000',
    });

    expect(config).toMatchObject({
      SVC_SLACK_CLIENT_ID: '123.456',
      SVC_SLACK_CLIENT_SECRET: 'secret',
      SVC_SLACK_URL: 'http://127.0.0.1:4000',
    });
  });

  it('refuses half a pair or an address that is not a URL, naming the setting', () => {
    expect(() => parseLocalConfig({ SVC_SLACK_CLIENT_ID: '123.456' })).toThrow(
      /SVC_SLACK_CLIENT_SECRET: SVC_SLACK_CLIENT_ID and SVC_SLACK_CLIENT_SECRET go together/,
    );
    expect(() => parseLocalConfig({ SVC_SLACK_URL: 'slack' })).toThrow(/SVC_SLACK_URL/);
  });
});
