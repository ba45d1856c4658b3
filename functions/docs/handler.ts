import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { API_DOCS_FILES } from '../../shared/api/routes';
import { httpHandler } from '../../shared/http/http-handler';
import { empty } from '../../shared/http/responses';
import { contentTypeOf, PAGE_HTML, pageResponse } from './page';

const HERE = dirname(fileURLToPath(import.meta.url));

/**
 * On Lambda the stack copies each file beside the bundle; unbundled (npm start, tests) the file is
 * read where it lies in the project, two levels above this module.
 */
const locate = (file: string): string => {
  const beside = join(HERE, basename(file));
  return existsSync(beside) ? beside : resolve(HERE, '../..', file);
};

const ASSETS = new Map<string, string>(API_DOCS_FILES.map((file) => [basename(file), file]));
const loaded = new Map<string, string>();

const asset = (name: string): string | undefined => {
  const file = ASSETS.get(name);
  if (file === undefined) return undefined;
  let text = loaded.get(name);
  if (text === undefined) {
    text = readFileSync(locate(file), 'utf8');
    loaded.set(name, text);
  }
  return text;
};

/** Public: the interactive API reference (`/api/docs`) and, with `?asset=<name>`, the files it loads. */
export const handler = httpHandler(async (event) => {
  const name = event.queryStringParameters.asset;
  if (name === undefined) return pageResponse(PAGE_HTML, contentTypeOf('.html'), 'no-cache');
  const text = asset(name);
  return text === undefined ? empty(404) : pageResponse(text, contentTypeOf(name), 'public, max-age=3600');
});
