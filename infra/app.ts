import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { BookLibraryStack } from './book-library-stack';
import { stackOptionsFromContext } from './context';

/**
 * Context options (`cdk deploy -c stage=prod -c throttleRate=100`):
 *   stage          stage name and resource suffix (default "dev"); "prod" retains data
 *   throttleRate   steady requests per second for the stage (default 50)
 *   throttleBurst  burst capacity (default 100)
 *   realm          authentication realm (default "books"; printable ASCII, no quotes or backslashes)
 *   digestAlgorithm  "MD5", "SHA-256", "MD5,SHA-256" or "SHA-256,MD5": the Digest challenges offered, in order (default MD5)
 *   basicChallenge "last", "first" or "none": the contract's Basic challenge after the Digest ones, before them, or
 *                  left out (default last; docs/security.md#clients says which clients each choice gains and loses)
 *   publicReads    "true": the two GET routes need no credentials (default "false")
 *   retainData     "true": keep and protect the tables outside "prod" too (default "false")
 *   tracing        "true": active X-Ray tracing for the stage and the functions (default "false")
 *   webAclArn      a regional WAFv2 web ACL to associate with the stage (default none)
 *   alarmTopicArn  an SNS topic for the alarms (default none)
 *   samLocal       "true": declare DYNAMODB_ENDPOINT and NONCE_SECRET for `sam local --env-vars` (never deploy it)
 *   architecture   "arm64" or "x86_64": the functions' processor (default arm64; with samLocal, this machine's)
 * cdk-nag's AwsSolutions checks run on every synth: a finding that is not acknowledged with a
 * reason in the stack stops synthesis.
 */
const app = new App();
const options = stackOptionsFromContext((name) => app.node.tryGetContext(name));
new BookLibraryStack(app, `BookLibrary-${options.stage}`, options);

Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
