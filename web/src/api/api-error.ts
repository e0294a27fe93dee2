import { formatWait } from '../format/format';

/**
 * Every failed call as something a person can act on (CONSOLE.md §5): a
 * sentence (`message`), what the service said (`code`, `serverMessage`,
 * `details`), the request id support needs, and for 429s how long to wait.
 * Reads the nested shape of /api/v1 (`{error:{code,message,details},
 * request_id}`) and the flat legacy shapes (`FlatError`).
 */
export class ApiError extends Error {
  override readonly name = 'ApiError';

  constructor(
    /** The HTTP status; 0 when no response came (offline, aborted, the connection dropped). */
    readonly status: number,
    readonly code: string,
    /** What to show: a sentence with the next step. */
    message: string,
    readonly serverMessage: string,
    readonly details: Readonly<Record<string, unknown>>,
    readonly requestId: string | null,
    /** Seconds to wait before trying again (429 and 503), if the service said. */
    readonly retryAfter: number | null,
  ) {
    super(message);
  }

  /** Why a 403 refused (`sso_required`, `cross_site`, …), if it says. */
  get reason(): string | null {
    return typeof this.details.reason === 'string' ? this.details.reason : null;
  }

  /** The fields a 400 names (`details.fields`), each with what is wrong with it. */
  get fields(): ReadonlyArray<{ readonly path: string; readonly message: string }> {
    const fields = this.details.fields;
    if (!Array.isArray(fields)) return [];
    return fields.filter(
      (field): field is { path: string; message: string } =>
        isRecord(field) && typeof field.path === 'string' && typeof field.message === 'string',
    );
  }

  static unreachable(cause: unknown): ApiError {
    const aborted = cause instanceof DOMException && cause.name === 'AbortError';
    return new ApiError(
      0,
      aborted ? 'aborted' : 'unreachable',
      aborted
        ? 'The request was stopped.'
        : 'The service cannot be reached: check the connection, then try again.',
      cause instanceof Error ? cause.message : String(cause),
      {},
      null,
      null,
    );
  }

  /** The error a response carries, from its parsed JSON body (anything else counts as no body). */
  static from(body: unknown, response: Pick<Response, 'status' | 'headers'>): ApiError {
    const shape = readShape(body);
    const retryAfter =
      numberOr(shape.details.retry_after) ??
      numberOr(shape.flatRetryAfter) ??
      numberOr(Number(response.headers.get('Retry-After') ?? Number.NaN));
    const code = shape.code ?? `http_${response.status}`;
    return new ApiError(
      response.status,
      code,
      sentenceFor(response.status, code, shape, retryAfter),
      shape.message ?? '',
      shape.details,
      shape.requestId ?? response.headers.get('X-Request-Id'),
      retryAfter,
    );
  }
}

interface ErrorShape {
  readonly code: string | null;
  readonly message: string | null;
  readonly details: Readonly<Record<string, unknown>>;
  readonly requestId: string | null;
  readonly flatRetryAfter: unknown;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function stringOr(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

function numberOr(value: unknown): number | null {
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

function readShape(body: unknown): ErrorShape {
  if (!isRecord(body)) {
    return { code: null, message: null, details: {}, requestId: null, flatRetryAfter: null };
  }
  const requestId = stringOr(body.request_id);
  if (isRecord(body.error)) {
    // Nested (/api/v1): { error: { code, message, details }, request_id }
    return {
      code: stringOr(body.error.code),
      message: stringOr(body.error.message),
      details: isRecord(body.error.details) ? body.error.details : {},
      requestId,
      flatRetryAfter: null,
    };
  }
  // Flat (legacy paths): { error: "…", code?, message?, details?, reason?, retry_after?, … }
  const details: Record<string, unknown> = isRecord(body.details) ? { ...body.details } : {};
  if (typeof body.reason === 'string') details.reason = body.reason;
  return {
    code: stringOr(body.code),
    message: stringOr(body.message) ?? stringOr(body.error),
    details,
    requestId,
    flatRetryAfter: body.retry_after,
  };
}

function sentenceFor(
  status: number,
  code: string,
  shape: ErrorShape,
  retryAfter: number | null,
): string {
  if (status === 429 || code === 'rate_limit_exceeded') {
    const wait = retryAfter === null ? 'a moment' : formatWait(retryAfter);
    return shape.details.reason === 'login_attempts'
      ? `Too many sign-in attempts: try again in ${wait}.`
      : `Too many requests: try again in ${wait}.`;
  }
  if (status === 401) return 'Your session has ended: sign in again.';
  if (status === 403 && shape.details.reason === 'sso_required') {
    return 'Your organization signs in with SSO: use "Sign in with SSO".';
  }
  if (status === 403 && typeof shape.details.required_role === 'string') {
    return `Your role does not allow this (it needs ${shape.details.required_role}).`;
  }
  if (status >= 500) {
    return 'The service failed to answer. Try again; if it keeps failing, quote the reference.';
  }
  return shape.message ?? `The request failed (HTTP ${status}).`;
}
