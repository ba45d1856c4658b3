import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * esbuild settings every function shares (`npm run bench` builds with exactly these). The SDK is
 * bundled (not the runtime's copy) and read through its `module` entry points, so unused parts are
 * dropped; the banner gives ESM bundles the `require` the AWS SDK expects. The source map is a file
 * beside the bundle that nothing references and `--enable-source-maps` is not set, so it costs
 * nothing at run time; map a minified stack trace with it offline (it is in cdk.out). The alias swaps
 * the SDK's default credential chain for its environment link, the only one that runs on Lambda
 * (see infra/lambda-credential-provider.ts).
 */
export const BUNDLING: nodejs.BundlingOptions = {
  format: nodejs.OutputFormat.ESM,
  mainFields: ['module', 'main'],
  target: 'node22',
  minify: true,
  sourceMap: true,
  sourceMapMode: nodejs.SourceMapMode.EXTERNAL,
  sourcesContent: false,
  banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
  externalModules: [],
  // Warnings and errors only: esbuild's file summary of every function is noise in a synth or a test run.
  logLevel: nodejs.LogLevel.WARNING,
  esbuildArgs: {
    '--alias': `@aws-sdk/credential-provider-node=${path.join(PROJECT_ROOT, 'infra/lambda-credential-provider.ts')}`,
  },
};
