import type { HttpResponse } from '../../shared/http/types';

/**
 * The page loads only what this route serves (`docs?asset=…`, relative so a stage prefix is kept)
 * and the OpenAPI document beside it; nothing from another host.
 */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Book Library Service – API reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="docs?asset=swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs?asset=swagger-ui-bundle.js"></script>
<script src="docs?asset=api-docs.js"></script>
</body>
</html>
`;

/**
 * Only this route's own scripts and styles, the API itself for the document and "Try it out", and
 * data: images (Swagger UI's icons are SVG data URLs in its stylesheet). No inline script, no
 * framing, no forms posted elsewhere.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
};

/** Text responses name their charset: Swagger UI's bundle does not parse in Chromium as Latin-1. */
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

export const contentTypeOf = (file: string): string =>
  CONTENT_TYPES[file.slice(file.lastIndexOf('.'))] ?? 'application/octet-stream';

export const pageResponse = (body: string, contentType: string, cacheControl: string): HttpResponse => ({
  statusCode: 200,
  headers: { 'Content-Type': contentType, 'Cache-Control': cacheControl, ...SECURITY_HEADERS },
  body,
});
