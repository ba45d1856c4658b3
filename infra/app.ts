import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BookLibraryStack } from './book-library-stack';
import { stackOptionsFromContext } from './context';

/**
 * Context options (`cdk deploy -c stage=prod -c throttleRate=100`), read and checked in context.ts,
 * are listed with their defaults in docs/operations.md (a test holds that table to context.ts).
 * cdk-nag's AwsSolutions checks run on every synth: a finding that is not acknowledged with a
 * reason in the stack stops synthesis.
 */
const app = new App();
const options = stackOptionsFromContext((name) => app.node.tryGetContext(name));
new BookLibraryStack(app, `BookLibrary-${options.stage}`, options);

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
