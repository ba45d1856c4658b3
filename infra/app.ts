import { App } from 'aws-cdk-lib';
import { BookLibraryStack } from './book-library-stack';

/**
 * Context options (`cdk deploy -c stage=prod -c throttleRate=100`):
 *   stage         stage name and resource suffix (default "dev"); "prod" retains data
 *   throttleRate  steady requests per second for the stage (default 50)
 *   throttleBurst burst capacity (default 100)
 *   realm         authentication realm (default "books")
 *   publicReads   "true": the two GET routes need no credentials (default "false")
 */
const app = new App();
const context = (name: string, fallback: string) => String(app.node.tryGetContext(name) ?? fallback);
const stage = context('stage', 'dev');

new BookLibraryStack(app, `BookLibrary-${stage}`, {
  stage,
  realm: context('realm', 'books'),
  publicReads: context('publicReads', 'false') === 'true',
  retainData: stage === 'prod' || context('retainData', 'false') === 'true',
  throttling: {
    rateLimit: Number(context('throttleRate', '50')),
    burstLimit: Number(context('throttleBurst', '100')),
  },
});
