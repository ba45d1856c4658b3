import type { MiddlewareObj } from '@middy/core';
import { parse as parseContentType } from 'content-type';
import { ValidationError } from '../books/errors';
import { PayloadTooLargeError, UnsupportedMediaTypeError } from './errors';
import type { HttpEvent, HttpResponse } from './types';

export const MAX_BODY_BYTES = 64 * 1024;

/** The media type every body route takes. */
export const JSON_MEDIA_TYPE = 'application/json';

/** JSON Merge Patch (RFC 7396): what a PATCH body is, and what PATCH takes besides plain JSON. */
export const MERGE_PATCH_MEDIA_TYPE = 'application/merge-patch+json';

export interface JsonBodyOptions {
  /** Media types taken besides application/json (PATCH: application/merge-patch+json). */
  alsoAccept?: readonly string[];
}

/** Fatal: a byte sequence that is not UTF-8 is an error, never silently turned into U+FFFD. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Whether a Content-Type names an accepted media type. Type, subtype and parameter names are
 * case-insensitive (RFC 9110 §8.3.1), which the parser takes care of; a charset, when given, must be
 * UTF-8 (RFC 8259 §8.1: JSON exchanged between systems is UTF-8), compared case-insensitively.
 */
const acceptedMediaType = (header: string | undefined, accepted: ReadonlySet<string>): boolean => {
  if (!header) return false;
  try {
    const { type, parameters } = parseContentType(header);
    const charset = parameters.charset?.toLowerCase();
    return accepted.has(type) && (charset === undefined || charset === 'utf-8');
  } catch {
    return false; // not a media type at all
  }
};

/** The body's bytes: API Gateway passes text as a string and bytes it does not take for text as base64. */
const bodyBytes = (body: unknown, isBase64Encoded: boolean): Buffer =>
  Buffer.from(String(body), isBase64Encoded ? 'base64' : 'utf8');

/**
 * Body handling (docs/contract.md, "Request bodies"), checked in this order: size in bytes (413), then media type (415), then the
 * bytes as UTF-8 and the text as JSON (400 with `errors.body`). A request without a body goes
 * through to validation, whose "required" messages are clearer than a 415. Written here rather
 * than with middy's JSON parser because that one compares media types case-sensitively, ignores the
 * charset, decodes bytes that are not UTF-8 into U+FFFD without a word, and answers malformed JSON
 * with its own 415; behind these checks it would add only a JSON.parse (docs/decisions/json-body-parser.md).
 */
export const jsonBody = (options: JsonBodyOptions = {}): MiddlewareObj<HttpEvent, HttpResponse> => {
  const accepted = new Set([JSON_MEDIA_TYPE, ...(options.alsoAccept ?? [])]);
  return {
    before: async (request) => {
      const { body, isBase64Encoded } = request.event;
      if (body === null || body === undefined || body === '') {
        request.event.body = undefined;
        return;
      }
      const bytes = bodyBytes(body, isBase64Encoded);
      if (bytes.length > MAX_BODY_BYTES) throw new PayloadTooLargeError(MAX_BODY_BYTES);
      if (!acceptedMediaType(request.event.headers['content-type'], accepted)) throw new UnsupportedMediaTypeError();
      let text: string;
      try {
        text = UTF8.decode(bytes);
      } catch {
        throw new ValidationError({ body: 'Request body must be valid UTF-8' });
      }
      try {
        request.event.body = JSON.parse(text);
      } catch {
        throw new ValidationError({ body: 'Request body must be valid JSON' });
      }
    },
  };
};
