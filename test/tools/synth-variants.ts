import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BookLibraryStack } from '../../infra/book-library-stack';
import { stackOptionsFromContext } from '../../infra/context';

const HELP = `Usage: tsx test/tools/synth-variants.ts OUTDIR

Synthesizes the stack once per variant the infra tests cover (dev with defaults; prod with every
option on; the samLocal template), each into OUTDIR/<variant>/, through the same context parsing
\`cdk synth -c ...\` uses, and prints each template's path.`;

/** Context per variant, as `cdk synth -c name=value` would pass it. */
export const STACK_VARIANTS: Record<string, Record<string, string>> = {
  dev: {},
  prod: {
    stage: 'prod',
    publicReads: 'true',
    digestAlgorithm: 'SHA-256',
    tracing: 'true',
    alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops',
    webAclArn: 'arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/ops/abc',
    throttleRate: '100',
    throttleBurst: '200',
  },
  'dev-retained': { retainData: 'true', digestAlgorithm: 'MD5' },
  'sam-local': { samLocal: 'true' },
};

const main = () => {
  const outRoot = process.argv[2];
  if (!outRoot || outRoot === '--help' || outRoot === '-h') {
    console.log(HELP);
    process.exit(outRoot ? 0 : 1);
  }
  for (const [variant, context] of Object.entries(STACK_VARIANTS)) {
    const outdir = resolve(join(outRoot, variant));
    mkdirSync(outdir, { recursive: true });
    const app = new App({ outdir, context });
    const options = stackOptionsFromContext((name) => app.node.tryGetContext(name));
    const stack = new BookLibraryStack(app, `BookLibrary-${options.stage}`, options);
    Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
    app.synth();
    console.log(join(outdir, stack.templateFile));
  }
};

main();
