import { parseCloudConfig } from '../../../../layers/core/config';
import { cloudOriginSecret } from '../../../../layers/core/wiring/cloud/cloud-origin-secret';

const SECRET_ARN =
  'arn:aws:secretsmanager:eu-west-1:123456789012:secret:OriginVerifySecretEA260BA4-AbCdEf';

describe('Cloud config: originVerify (P242)', () => {
  it('reads the secret’s ARN and trusts a read value five minutes by default', () => {
    expect(parseCloudConfig('originVerify', { ORIGIN_VERIFY_SECRET_ARN: SECRET_ARN })).toEqual({
      ORIGIN_VERIFY_SECRET_ARN: SECRET_ARN,
      ORIGIN_VERIFY_MAX_AGE_SECONDS: 300,
    });
  });

  it('refuses something that is not an ARN, naming the variable', () => {
    expect(() =>
      parseCloudConfig('originVerify', { ORIGIN_VERIFY_SECRET_ARN: 'OriginVerifySecret' }),
    ).toThrow(/Invalid function configuration \(originVerify\): ORIGIN_VERIFY_SECRET_ARN/);
  });

  it('trusts no request to come through CloudFront when the stack names no secret', () => {
    const saved = process.env.ORIGIN_VERIFY_SECRET_ARN;
    delete process.env.ORIGIN_VERIFY_SECRET_ARN;
    try {
      expect(cloudOriginSecret()).toBeUndefined();
    } finally {
      if (saved !== undefined) process.env.ORIGIN_VERIFY_SECRET_ARN = saved;
    }
  });
});
