/** One HTTP POST of a webhook delivery, as the dispatcher sends it. */
export interface WebhookRequest {
  readonly url: string;
  /** The exact bytes that were signed. */
  readonly body: string;
  readonly headers: Readonly<Record<string, string>>;
  /** 10 s unless configured otherwise (tests). */
  readonly timeoutMs: number;
}

/** What one attempt came to; never throws for network or HTTP failures. */
export interface WebhookAttemptResult {
  /** `null` when no HTTP response arrived (timeout, refused, TLS, address refused). */
  readonly statusCode: number | null;
  readonly durationMs: number;
  /** Short, safe description of a failure (`timeout after 10000 ms`, `connection reset`, `address 10.0.0.1 is not public`); `null` on any HTTP response. */
  readonly error: string | null;
}

/** Sends webhook requests to customer-supplied URLs, with the D35 address rules applied at connect time. */
export interface WebhookTransport {
  post(request: WebhookRequest): Promise<WebhookAttemptResult>;
}

/** The outcome of checking a customer-supplied URL. */
export type UrlCheck = { readonly ok: true } | { readonly ok: false; readonly reason: string };

/** Checks a webhook URL when it is registered or changed: scheme, public addresses, a valid certificate. */
export interface WebhookUrlVerifier {
  verify(url: string): Promise<UrlCheck>;
}
