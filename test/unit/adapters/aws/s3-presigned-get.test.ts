import { presignedGetUrl } from '../../../../layers/core/adapters/aws/s3-presigned-get';

describe('presignedGetUrl', () => {
  it('signs the example of "Authenticating Requests: Using Query Parameters" as AWS documents it', () => {
    const url = presignedGetUrl({
      bucketUrl: new URL('https://examplebucket.s3.amazonaws.com/'),
      key: 'test.txt',
      region: 'us-east-1',
      credentials: {
        accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
        secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
      },
      signedAt: new Date('2013-05-24T00:00:00Z'),
      expiresInSeconds: 86400,
    });

    expect(url).toBe(
      'https://examplebucket.s3.amazonaws.com/test.txt' +
        '?X-Amz-Algorithm=AWS4-HMAC-SHA256' +
        '&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request' +
        '&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host' +
        '&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404',
    );
  });

  it('signs the response overrides and a session token with the rest, keeping the key’s slashes', () => {
    const url = new URL(
      presignedGetUrl({
        bucketUrl: new URL('https://aqs-files.s3.eu-west-1.amazonaws.com/'),
        key: 'files/org_a/ds_b/doc_c',
        region: 'eu-west-1',
        credentials: { accessKeyId: 'ASIAEXAMPLE', secretAccessKey: 's', sessionToken: 'to/ken+' },
        signedAt: new Date('2026-11-29T06:00:00Z'),
        expiresInSeconds: 300,
        query: {
          'response-content-type': 'text/markdown; charset=utf-8',
          'response-content-disposition': 'inline; filename="express.md"',
        },
      }),
    );

    expect(url.pathname).toBe('/files/org_a/ds_b/doc_c');
    expect(Object.fromEntries(url.searchParams)).toEqual({
      'X-Amz-Algorithm': 'AWS4-HMAC-SHA256',
      'X-Amz-Credential': 'ASIAEXAMPLE/20261129/eu-west-1/s3/aws4_request',
      'X-Amz-Date': '20261129T060000Z',
      'X-Amz-Expires': '300',
      'X-Amz-SignedHeaders': 'host',
      'X-Amz-Security-Token': 'to/ken+',
      'response-content-type': 'text/markdown; charset=utf-8',
      'response-content-disposition': 'inline; filename="express.md"',
      'X-Amz-Signature': expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});
