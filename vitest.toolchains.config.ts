import { defineConfig } from 'vitest/config';

/**
 * The tests that need toolchains besides Node and Java, kept out of `npm test` so that it runs on a
 * machine with only those two; .ci/run runs both projects, and fails when a toolchain is missing.
 * `npm run test:clients`: real HTTP clients (curl, wget, HTTPie, Chromium, Python, Go, Rust, Java with
 * Maven). `npm run test:browser`: the API reference page and CORS from another origin, in Chromium. Each writes its own JSON report.
 */
const project = (name: string) => ({
  extends: true as const,
  test: { name, include: [`test/${name}/**/*.test.ts`] },
});

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    globalSetup: ['test/support/global-setup.ts'],
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/toolchains.json' },
    projects: [project('clients'), project('browser')],
  },
});
