import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { RESOURCE_PATHS, ROUTES, unroutedMethods } from '../../shared/api/routes';
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

const synth = (samLocal: boolean, bufferedList = false): Synthesized => {
  const outdir = mkdtempSync(join(tmpdir(), 'list-delivery-'));
  assemblies.push(outdir);
  const app = new App({ outdir });
  const stack = new BookLibraryStack(app, `Test-${samLocal ? 'sam' : bufferedList ? 'buffered' : 'default'}`, {
    stage: 'dev',
    retainData: false,
    realm: 'books',
    publicReads: false,
    throttling: { rateLimit: 10, burstLimit: 20 },
    samLocal,
    bufferedList,
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

  it('bufferedList (regions without response streaming): the buffered list behind a proxy integration, nothing else changed', () => {
    const buffered = synth(false, true);
    expect(buffered.listMethod.Integration.ResponseTransferMode ?? 'BUFFERED').toBe('BUFFERED');
    expect(JSON.stringify(buffered.listMethod.Integration.Uri)).not.toContain('/response-streaming-invocations');
    expect(buffered.listSources).toContain('functions/books/list-buffered.ts');
    expect(buffered.listSources).not.toContain('functions/books/list.ts');
    // A deployable template: none of samLocal's variables, the same methods as the streamed one.
    expect(JSON.stringify(buffered.template.toJSON())).not.toContain('DYNAMODB_ENDPOINT');
    expect(Object.keys(buffered.template.findResources('AWS::ApiGateway::Method')).sort()).toEqual(
      Object.keys(deployed.template.findResources('AWS::ApiGateway::Method')).sort(),
    );
  }, 120_000);

  it('samLocal: no method streams, and every route still has its one function and method', () => {
    const methods = Object.values(samLocal.template.findResources('AWS::ApiGateway::Method'));
    expect(methods.filter((method) => method.Properties.Integration?.ResponseTransferMode === 'STREAM')).toEqual([]);
    // start-api's ANY route would take over the functions' own methods: each unrouted method is named.
    expect(methods.filter((method) => method.Properties.HttpMethod === 'ANY')).toEqual([]);
    const unrouted = RESOURCE_PATHS.flatMap((path) => unroutedMethods(path)).length;
    const gets = ROUTES.filter((route) => route.method === 'GET').length;
    for (const [template, unroutedCount] of [
      [deployed.template, 2 * RESOURCE_PATHS.length],
      [samLocal.template, unrouted],
    ] as const) {
      // One function per route, the authorizer, UNROUTED_METHODS and the change-events publisher; one
      // function-backed method per route, a HEAD beside each GET, and OPTIONS and the 405s on every resource.
      template.resourceCountIs('AWS::Lambda::Function', ROUTES.length + 3);
      const proxied = Object.values(template.findResources('AWS::ApiGateway::Method')).filter(
        (method) => method.Properties.Integration?.Type === 'AWS_PROXY',
      );
      expect(proxied).toHaveLength(ROUTES.length + gets + unroutedCount);
      expect(Object.keys(template.findResources('AWS::ApiGateway::Method'))).toHaveLength(proxied.length);
    }
  });
});
