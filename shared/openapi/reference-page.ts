import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_REFERENCE_ASSETS } from '../api/routes';
import type { HttpResponse } from '../http/types';

/**
 * The browsable API reference: Swagger UI (swagger-ui-dist, a well-kept package; chosen over Scalar
 * and Redoc because its "Try it out" speaks both of the document's HTTP schemes, Basic included, and
 * it ships as two static files with no runtime fetches) rendering the served OpenAPI document. Every
 * file comes from the API itself, so the page works offline and in a locked-down account.
 */

/**
 * Only the page's own files, nothing inline: Swagger UI sets its element styles through the DOM
 * (which a policy does not govern) and needs no style attribute or element; the browser test
 * fails on any violation the page reports.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self' data:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS = {
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
};

/** Relative URLs: the page is `…/api/docs`, so they resolve under the stage or base path on AWS too. */
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Book Library API reference</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="stylesheet" href="docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="docs/swagger-ui-bundle.js"></script>
<script src="docs/init.js"></script>
</body>
</html>
`;

/** validatorUrl null: Swagger UI would otherwise send the document to validator.swagger.io. */
const INIT_SCRIPT = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: 'openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  });
});
`;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
};

/** Beside the bundle on Lambda (the stack copies the files there); in node_modules when run from source. */
const assetDirectories = (): string[] => {
  const here = dirname(fileURLToPath(import.meta.url));
  try {
    return [here, dirname(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'))];
  } catch {
    return [here];
  }
};

const files = new Map<string, string>([['init.js', INIT_SCRIPT]]);

const readAsset = (name: string): string | undefined => {
  if (files.has(name)) return files.get(name);
  if (!API_REFERENCE_ASSETS.some((asset) => basename(asset) === name)) return undefined;
  const path = assetDirectories()
    .map((directory) => join(directory, name))
    .find((candidate) => existsSync(candidate));
  if (!path) return undefined;
  const text = readFileSync(path, 'utf8');
  files.set(name, text);
  return text;
};

export const referencePage = (): HttpResponse => ({
  statusCode: 200,
  headers: { 'Content-Type': 'text/html; charset=utf-8', ...SECURITY_HEADERS },
  body: PAGE,
});

/** One of the page's files by name, or undefined for any other name. */
export const referenceAsset = (name: string): HttpResponse | undefined => {
  const body = readAsset(name);
  const type = TYPES[name.slice(name.lastIndexOf('.'))];
  if (body === undefined || type === undefined) return undefined;
  return {
    statusCode: 200,
    headers: { 'Content-Type': type, 'Cache-Control': 'public, max-age=3600', ...SECURITY_HEADERS },
    body,
  };
};
