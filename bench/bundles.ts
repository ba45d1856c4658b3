import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { BUNDLING } from '../infra/bundling';
import { AUTHORIZER, ROUTES } from '../shared/api/routes';

export const PROJECT_ROOT = resolve(import.meta.dirname, '..');

export interface FunctionEntry {
  /** The stack's logical name (route name, `Authorizer`, or `Floor`). */
  name: string;
  /** Handler file relative to the project root. */
  entry: string;
}

export const FLOOR: FunctionEntry = { name: 'Floor', entry: 'bench/floor.ts' };

/** Every function the stack deploys, in the route table's order, then the authorizer. */
const stackFunctions = (): FunctionEntry[] => [
  ...ROUTES.map(({ name, entry }) => ({ name, entry })),
  { name: AUTHORIZER.name, entry: AUTHORIZER.entry },
];

/** NodejsFunction options this translation knows; anything else fails the bench rather than being ignored. */
const KNOWN_OPTIONS = new Set([
  'format',
  'mainFields',
  'target',
  'minify',
  'sourceMap',
  'sourceMapMode',
  'sourcesContent',
  'banner',
  'footer',
  'externalModules',
  'define',
  'loader',
  'keepNames',
  'logLevel',
  'inject',
  'esbuildArgs',
]);

export class UnsupportedBundlingOptionError extends Error {
  override readonly name = 'UnsupportedBundlingOptionError';
}

/**
 * The esbuild options NodejsFunction passes for `bundling` (aws-cdk-lib's Bundling builds the same
 * command-line flags), so the bench measures exactly what the stack ships without running CDK.
 */
export const esbuildOptions = (bundling: BundlingOptions, entry: string, outfile: string): BuildOptions => {
  for (const key of Object.keys(bundling)) {
    if (!KNOWN_OPTIONS.has(key)) throw new UnsupportedBundlingOptionError(`bench cannot reproduce bundling.${key}`);
  }
  const alias = aliases(bundling.esbuildArgs ?? {});
  const sourceMap = bundling.sourceMapMode ?? (bundling.sourceMap ? 'default' : undefined);
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    target: bundling.target ?? 'node24',
    ...(bundling.format && { format: bundling.format }),
    outfile,
    minify: bundling.minify ?? false,
    ...(sourceMap && { sourcemap: sourceMap === 'default' ? true : sourceMap }),
    ...(bundling.sourcesContent === false && { sourcesContent: false }),
    // NodejsFunction's default on Node 18+ runtimes leaves the runtime's SDK v3 outside the bundle.
    external: bundling.externalModules ?? ['@aws-sdk/*'],
    ...(bundling.loader && { loader: bundling.loader as BuildOptions['loader'] }),
    ...(bundling.define && { define: bundling.define }),
    ...(bundling.logLevel && { logLevel: bundling.logLevel as BuildOptions['logLevel'] }),
    ...(bundling.keepNames && { keepNames: true }),
    ...(bundling.banner && { banner: { js: bundling.banner } }),
    ...(bundling.footer && { footer: { js: bundling.footer } }),
    ...(bundling.mainFields && { mainFields: bundling.mainFields }),
    ...(bundling.inject && { inject: bundling.inject }),
    ...(Object.keys(alias).length > 0 && { alias }),
    metafile: true,
    absWorkingDir: PROJECT_ROOT,
  };
};

/** `--alias` entries of NodejsFunction's `esbuildArgs` (`old=new`, one string or a list); any other flag fails. */
const aliases = (args: NonNullable<BundlingOptions['esbuildArgs']>): Record<string, string> => {
  const alias: Record<string, string> = {};
  for (const [flag, value] of Object.entries(args)) {
    if (flag !== '--alias') throw new UnsupportedBundlingOptionError(`bench cannot reproduce esbuildArgs ${flag}`);
    for (const entry of Array.isArray(value) ? value : [value]) {
      const [from = '', to = ''] = String(entry).split('=');
      alias[from] = to;
    }
  }
  return alias;
};

/**
 * The floor's recipe: the stack's options (ESM, module main fields, minified,
 * createRequire banner) without the project's own swaps (`esbuildArgs` aliases), so what a swap
 * saves shows as a ratio below the floor's rather than moving the floor.
 */
export const FLOOR_BUNDLING: BundlingOptions = (({ esbuildArgs: _swaps, ...recipe }) => recipe)(BUNDLING);

export interface BuiltFunction extends FunctionEntry {
  /** The bundle Lambda loads (`index.mjs` for ESM). */
  file: string;
  bytes: number;
  metafile: Metafile;
}

/** Builds one function into `outDir/<name>/` as the stack would. */
export const buildFunction = async (
  fn: FunctionEntry,
  outDir: string,
  bundling: BundlingOptions = BUNDLING,
): Promise<BuiltFunction> => {
  const file = join(outDir, fn.name, bundling.format === 'esm' ? 'index.mjs' : 'index.js');
  const result = await build({ ...esbuildOptions(bundling, fn.entry, file), logLevel: 'error' });
  return { ...fn, file, bytes: statSync(file).size, metafile: result.metafile as Metafile };
};

/** The floor first, then every function of the stack. */
export const buildAll = async (outDir: string, bundling: BundlingOptions = BUNDLING): Promise<BuiltFunction[]> => {
  const built: BuiltFunction[] = [];
  built.push(await buildFunction(FLOOR, outDir, bundling === BUNDLING ? FLOOR_BUNDLING : bundling));
  for (const fn of stackFunctions()) built.push(await buildFunction(fn, outDir, bundling));
  return built;
};

/** Output bytes per npm package (or project folder), to show where a bundle's size comes from. */
const bytesByPackage = (metafile: Metafile): Map<string, number> => {
  const sizes = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path)?.[1] ?? path.split('/').slice(0, 2).join('/');
      sizes.set(pkg, (sizes.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return sizes;
};

/** What a function carries beyond the floor, by package, largest first. */
export const extraOverFloor = (fn: BuiltFunction, floor: BuiltFunction, top = 6): [string, number][] => {
  const base = bytesByPackage(floor.metafile);
  return [...bytesByPackage(fn.metafile)]
    .map(([pkg, bytes]): [string, number] => [pkg, bytes - (base.get(pkg) ?? 0)])
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1])
    .slice(0, top);
};

/** What a function saves against the floor, by package, largest saving first (negative bytes). */
export const savingsAgainstFloor = (fn: BuiltFunction, floor: BuiltFunction, top = 3): [string, number][] => {
  const own = bytesByPackage(fn.metafile);
  return [...bytesByPackage(floor.metafile)]
    .map(([pkg, bytes]): [string, number] => [pkg, (own.get(pkg) ?? 0) - bytes])
    .filter(([, bytes]) => bytes < 0)
    .sort((a, b) => a[1] - b[1])
    .slice(0, top);
};
