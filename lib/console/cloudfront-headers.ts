import { Duration } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';

/**
 * A set of response headers (name → value), as CloudFront's response
 * headers policy takes them: the security headers CloudFront knows go in
 * its `securityHeadersBehavior` (it refuses them as custom headers), any
 * other as a custom header. `override`: whether CloudFront's value replaces
 * one the origin sent. Throws for a value the policy cannot express, so the
 * shared lists (lib/console/security-headers.ts, the API's SECURITY_HEADERS)
 * are never silently served differently in the cloud.
 */
export function responseHeadersOf(
  headers: Readonly<Record<string, string>>,
  override: boolean,
): Pick<
  cloudfront.ResponseHeadersPolicyProps,
  'securityHeadersBehavior' | 'customHeadersBehavior'
> {
  const security: {
    -readonly [K in keyof cloudfront.ResponseSecurityHeadersBehavior]: cloudfront.ResponseSecurityHeadersBehavior[K];
  } = {};
  const custom: cloudfront.ResponseCustomHeader[] = [];
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override };
        break;
      case 'strict-transport-security':
        security.strictTransportSecurity = { ...strictTransportSecurityOf(value), override };
        break;
      case 'x-content-type-options':
        if (value.toLowerCase() !== 'nosniff') throw unexpressible(name, value);
        security.contentTypeOptions = { override };
        break;
      case 'x-frame-options':
        security.frameOptions = {
          frameOption: enumValueOf(cloudfront.HeadersFrameOption, name, value.toUpperCase()),
          override,
        };
        break;
      case 'referrer-policy':
        security.referrerPolicy = {
          referrerPolicy: enumValueOf(cloudfront.HeadersReferrerPolicy, name, value.toLowerCase()),
          override,
        };
        break;
      default:
        custom.push({ header: name, value, override });
    }
  }
  return {
    securityHeadersBehavior: security,
    ...(custom.length > 0 ? { customHeadersBehavior: { customHeaders: custom } } : {}),
  };
}

/** `max-age=31536000; includeSubDomains; preload` → the policy's three fields. */
function strictTransportSecurityOf(
  value: string,
): Omit<cloudfront.ResponseHeadersStrictTransportSecurity, 'override'> {
  const directives = value
    .split(';')
    .map((part) => part.trim().toLowerCase())
    .filter(Boolean);
  const maxAge = directives.find((directive) => directive.startsWith('max-age='));
  const seconds = maxAge ? Number(maxAge.slice('max-age='.length)) : Number.NaN;
  const known = directives.every(
    (directive) =>
      directive === maxAge || directive === 'includesubdomains' || directive === 'preload',
  );
  if (!Number.isInteger(seconds) || seconds < 0 || !known) {
    throw unexpressible('Strict-Transport-Security', value);
  }
  return {
    accessControlMaxAge: Duration.seconds(seconds),
    includeSubdomains: directives.includes('includesubdomains'),
    preload: directives.includes('preload'),
  };
}

function enumValueOf<E extends string>(
  values: Readonly<Record<string, E>>,
  name: string,
  value: string,
): E {
  const found = Object.values(values).find((candidate) => candidate === value);
  if (found === undefined) throw unexpressible(name, value);
  return found;
}

function unexpressible(name: string, value: string): Error {
  return new Error(`${name}: ${value} cannot be expressed in a CloudFront response headers policy`);
}
