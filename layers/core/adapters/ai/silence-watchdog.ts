/**
 * Aborts the request after `timeoutMs` without news from the provider. The
 * SDK's own timeout stops at the response headers; a stream that stalls after
 * them would otherwise hang the query.
 */
export class SilenceWatchdog {
  readonly signal: AbortSignal;
  timedOut = false;
  readonly #controller = new AbortController();
  readonly #timeoutMs: number;
  #timer: NodeJS.Timeout | undefined;

  constructor(timeoutMs: number, callerSignal: AbortSignal | undefined) {
    this.#timeoutMs = timeoutMs;
    this.signal = callerSignal
      ? AbortSignal.any([callerSignal, this.#controller.signal])
      : this.#controller.signal;
    this.restart();
  }

  restart(): void {
    this.pause();
    this.#timer = setTimeout(() => {
      this.timedOut = true;
      this.#controller.abort();
    }, this.#timeoutMs);
  }

  pause(): void {
    clearTimeout(this.#timer);
  }
}
