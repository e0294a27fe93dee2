import { AddressNotAllowedError } from './url-guard';

/**
 * OpenSSL's certificate verification results as Node reports them in
 * `error.code`, plus Node's own host-name mismatch.
 */
const CERTIFICATE_ERRORS = new Set([
  'CERT_CHAIN_TOO_LONG',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REJECTED',
  'CERT_REVOKED',
  'CERT_SIGNATURE_FAILURE',
  'CERT_UNTRUSTED',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'ERR_TLS_CERT_ALTNAME_INVALID',
  'ERROR_IN_CERT_NOT_AFTER_FIELD',
  'ERROR_IN_CERT_NOT_BEFORE_FIELD',
  'HOSTNAME_MISMATCH',
  'INVALID_CA',
  'INVALID_PURPOSE',
  'PATH_LENGTH_EXCEEDED',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_DECODE_ISSUER_PUBLIC_KEY',
  'UNABLE_TO_DECRYPT_CERT_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
]);

const DNS_FAILURES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NONAME', 'ENODATA']);

/**
 * A short, safe description of why a connection or request failed, for
 * delivery records and URL checks. Built from the error's class and
 * code only — never its message, which can carry host details or response
 * fragments.
 */
export function describeConnectionError(error: unknown): string {
  if (error instanceof AddressNotAllowedError) return error.message;
  const code = codeOf(error);
  if (code === undefined) return 'connection failed';
  if (CERTIFICATE_ERRORS.has(code)) return `certificate rejected: ${code}`;
  if (DNS_FAILURES.has(code)) return `host does not resolve (${code})`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      // Node's HTTP client reports a socket closed before any response as `socket hang up`.
      return (error as { message?: unknown }).message === 'socket hang up'
        ? 'connection closed before a response'
        : 'connection reset';
    case 'EPIPE':
      return 'connection closed while sending';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'ERR_INVALID_CHAR':
    case 'ERR_INVALID_HTTP_TOKEN':
      return 'invalid request header';
    default:
      return code === 'EPROTO' || code.startsWith('ERR_SSL_')
        ? `TLS handshake failed (${code})`
        : `connection failed (${code})`;
  }
}

function codeOf(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^[A-Z][A-Z0-9_]*$/.test(code) ? code : undefined;
}
