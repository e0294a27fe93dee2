import {
  InvalidRequestError,
  PayloadTooLargeError,
  UnsupportedMediaTypeError,
} from '../../domain/errors';
import { assertJsonWithinBounds } from '../json-bounds';
import { type HttpMiddleware, type HttpRequest, headerValue } from '../request-state';

/** An HTML form's body, accepted only on routes marked `formPost` (an IdP's POST). */
const FORM_MEDIA_TYPE = 'application/x-www-form-urlencoded';

/** The largest request body accepted. */
export const MAX_BODY_BYTES = 1024 * 1024;

/**
 * Bodies are JSON only (`415` otherwise), at most 1 MiB (`413`), within
 * the shape bounds of P197 (`400` naming the bound), and must parse (`400`). An absent or empty body is left `undefined` for the
 * operation's schema to judge.
 *
 * Ours rather than `@middy/http-json-body-parser` (issue 8): that one answers
 * malformed JSON with `422` and has no size limit, where D4 asks for `400`
 * and `413`, in the API's error shapes.
 */
export function jsonBody(): HttpMiddleware {
  const jsonBodyBefore = (request: HttpRequest): void => {
    const { event } = request;
    if (event.body === null || event.body === undefined || event.body === '') return;
    const raw = event.isBase64Encoded
      ? Buffer.from(event.body, 'base64')
      : Buffer.from(event.body, 'utf8');
    if (raw.byteLength > MAX_BODY_BYTES) {
      throw new PayloadTooLargeError(
        `Request body is ${raw.byteLength} bytes; the limit is ${MAX_BODY_BYTES}`,
        {
          limit_bytes: MAX_BODY_BYTES,
        },
      );
    }
    const contentType = headerValue(event, 'content-type') ?? '';
    const mediaType = contentType.split(';')[0]?.trim().toLowerCase();
    if (request.context.svc.route?.formPost && mediaType === FORM_MEDIA_TYPE) {
      // SAML HTTP-POST binding: the form's fields, each given once (a repeated one is refused by the schema).
      request.context.svc.body = Object.fromEntries(new URLSearchParams(raw.toString('utf8')));
      return;
    }
    if (mediaType !== 'application/json') {
      throw new UnsupportedMediaTypeError(
        `Request bodies must be application/json; got ${mediaType ? `"${mediaType.slice(0, 100)}"` : 'no Content-Type'}`,
      );
    }
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(raw);
    } catch {
      throw new InvalidRequestError('Request body is not valid UTF-8 JSON');
    }
    // P197: the shape is bounded before anything parses or validates it.
    assertJsonWithinBounds(text);
    try {
      request.context.svc.body = JSON.parse(text);
    } catch {
      throw new InvalidRequestError('Request body is not valid UTF-8 JSON');
    }
  };
  return { before: jsonBodyBefore };
}
