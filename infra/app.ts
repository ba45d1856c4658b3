import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BookLibraryStack } from './book-library-stack';
import { stackOptionsFromContext } from './context';

/**
 * Context options (`cdk deploy -c stage=prod -c throttleRate=100`) are parsed and checked by
 * context.ts; docs/operations.md ("Deploying") lists each with its default.
 * cdk-nag's AwsSolutions checks run on every synth: a finding that is not acknowledged with a
 * reason in the stack stops synthesis.
 */
const app = new App();
const options = stackOptionsFromContext((name) => app.node.tryGetContext(name));
new BookLibraryStack(app, `BookLibrary-${options.stage}`, options);

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
