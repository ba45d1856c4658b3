import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BookLibraryStack } from './book-library-stack';
import { checkContextNames, InvalidContextError, stackOptionsFromContext } from './context';

/**
 * Context options (`cdk deploy -c stage=prod -c throttleRate=100`) are parsed and checked by
 * context.ts; docs/operations.md ("Deploying") lists each with its default. A name the stack does
 * not read, or a value it cannot use, stops synthesis with one line naming it (no stack trace: the
 * mistake is the operator's, not the code's).
 * cdk-nag's AwsSolutions checks run on every synth: a finding that is not acknowledged with a
 * reason in the stack stops synthesis.
 */
const app = new App();
const options = (() => {
  try {
    checkContextNames(app.node.getAllContext());
    return stackOptionsFromContext((name) => app.node.tryGetContext(name));
  } catch (error) {
    if (!(error instanceof InvalidContextError)) throw error;
    console.error(`error: ${error.message}`);
    process.exit(1);
  }
})();
new BookLibraryStack(app, `BookLibrary-${options.stage}`, options);

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
