import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { ROUTES } from '../../shared/api/routes';
import { PROJECT_ROOT } from '../support/source-files';

/**
 * How the list reaches the client in each template: the deployed stack streams it (STREAM transfer
 * mode, the streaming handler), the samLocal template (`npm run synth:sam`) answers it buffered,
 * because `sam local start-api` cannot relay a stream (docs/sam.md). Which handler a function runs is
 * read from its bundle's source map, which lists the files the bundle was built from.
 */
const assemblies: string[] = [];
afterAll(() => {
  for (const dir of assemblies) rmSync(dir, { recursive: true, force: true });
});

interface Synthesized {
  template: Template;
  /** The list function's method (GET /api/books). */
  listMethod: { Integration: Record<string, unknown> };
  /** The files the list function's bundle was built from, relative to the project root. */
  listSources: string[];
}

const synth = (samLocal: boolean): Synthesized => {
  const outdir = mkdtempSync(join(tmpdir(), 'list-delivery-'));
  assemblies.push(outdir);
  const app = new App({ outdir });
  const stack = new BookLibraryStack(app, `Test-${samLocal ? 'sam' : 'default'}`, {
    stage: 'dev',
    retainData: false,
    realm: 'books',
    publicReads: false,
    throttling: { rateLimit: 10, burstLimit: 20 },
    samLocal,
  });
  const template = Template.fromStack(stack);
  const functions = Object.entries(template.findResources('AWS::Lambda::Function'));
  const list = functions.filter(([id]) => id.startsWith('ListBooks'));
  expect(list).toHaveLength(1);
  const [listId, listFunction] = list[0] as [string, { Properties: { Code: { S3Key: string } } }];
  // The bundle's asset folder in the cloud assembly is named by the same hash as its S3 key.
  const asset = `asset.${listFunction.Properties.Code.S3Key.replace(/\.zip$/, '')}`;
  const mapFile = join(outdir, asset, 'index.mjs.map');
  const map = JSON.parse(readFileSync(mapFile, 'utf8'));
  // A source map's sources are relative to the map. esbuild wrote this one into the assembly's
  // bundling-temp-<hash> folder, which CDK then renamed to the asset folder: the same depth, so the
  // sources resolve from the asset folder wherever the assembly and the checkout live.
  const sources = (map.sources as string[]).map((source) => resolve(dirname(mapFile), map.sourceRoot ?? '', source));
  const methods = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
    (method) =>
      method.Properties.HttpMethod === 'GET' && JSON.stringify(method.Properties.Integration.Uri).includes(listId),
  );
  expect(methods).toHaveLength(1);
  return {
    template,
    listMethod: methods[0]?.Properties,
    listSources: sources
      .filter((source) => source.startsWith(`${PROJECT_ROOT}/`))
      .map((source) => relative(PROJECT_ROOT, source)),
  };
};

describe('the list function in each template', () => {
  let deployed: Synthesized;
  let samLocal: Synthesized;
  beforeAll(() => {
    deployed = synth(false);
    samLocal = synth(true);
  }, 240_000);

  it('deployed (default context): streams, STREAM transfer mode through the response-streaming URI, with the streaming handler', () => {
    expect(deployed.listMethod.Integration).toMatchObject({ Type: 'AWS_PROXY', ResponseTransferMode: 'STREAM' });
    expect(JSON.stringify(deployed.listMethod.Integration.Uri)).toContain('/response-streaming-invocations');
    expect(deployed.listSources).toContain('functions/books/list.ts');
    expect(deployed.listSources).toContain('shared/http/streamed-json-array.ts');
    expect(deployed.listSources).not.toContain('functions/books/list-buffered.ts');
    expect(deployed.listSources).not.toContain('shared/http/buffered-json-array.ts');
  });

  it('samLocal: an ordinary buffered proxy integration, with the buffered handler', () => {
    expect(samLocal.listMethod.Integration).toMatchObject({ Type: 'AWS_PROXY' });
    expect(samLocal.listMethod.Integration.ResponseTransferMode ?? 'BUFFERED').toBe('BUFFERED');
    const uri = JSON.stringify(samLocal.listMethod.Integration.Uri);
    expect(uri).toContain('/invocations');
    expect(uri).not.toContain('/response-streaming-invocations');
    expect(samLocal.listSources).toContain('functions/books/list-buffered.ts');
    expect(samLocal.listSources).toContain('shared/http/buffered-json-array.ts');
    expect(samLocal.listSources).not.toContain('functions/books/list.ts');
    expect(samLocal.listSources).not.toContain('shared/http/streamed-json-array.ts');
  });

  it('samLocal: no method streams, and every route still has its one function and method', () => {
    const methods = Object.values(samLocal.template.findResources('AWS::ApiGateway::Method'));
    expect(methods.filter((method) => method.Properties.Integration?.ResponseTransferMode === 'STREAM')).toEqual([]);
    // start-api serves no MOCK integration, and an ANY route would shadow every function's method.
    expect(methods.filter((method) => method.Properties.Integration?.Type === 'MOCK')).toEqual([]);
    expect(methods.filter((method) => method.Properties.HttpMethod === 'ANY')).toEqual([]);
    for (const template of [deployed.template, samLocal.template]) {
      // One function per route plus the authorizer; one function-backed method per route, and a HEAD
      // beside each GET (OPTIONS and the 405s are MOCK methods).
      template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + 1);
      const proxied = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
        (method) => method.Properties.Integration?.Type === 'AWS_PROXY',
      );
      const gets = ROUTES.filter((route) => route.method === 'GET').length;
      expect(proxied).toHaveLength(ROUTES.length + gets);
    }
  });
});
