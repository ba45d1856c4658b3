import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * Stands in for `@aws-sdk/credential-provider-node` in the Lambda bundles only (an esbuild alias in
 * infra/bundling.ts's BUNDLING); tools and tests run on Node use the real default chain.
 *
 * Why: the default chain's first link on Lambda is the environment, where the runtime always puts
 * the execution role's credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN), so
 * the chain's other links never run there. Bundled, though, they weigh about 90 KB (SSO, STS and
 * sign-in clients, INI files, IMDS): a quarter of every function and a share of every cold start.
 * `npm run bench` measures the difference; test/infra/bundling.test.ts runs the built bundles.
 */
export const defaultProvider: typeof import('@aws-sdk/credential-provider-node').defaultProvider = (init) =>
  fromEnv(init);
