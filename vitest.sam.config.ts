import { defineConfig } from 'vitest/config';

/**
 * `npm run test:sam` (docs/sam.md): the functions under `sam local` in Docker. Not part of
 * `npm test`, because it needs a Docker engine and root to start one; .ci/run runs it after.
 */
export default defineConfig({
  test: {
    include: ['test/sam/**/*.test.ts'],
    testTimeout: 180_000,
    hookTimeout: 360_000,
    reporters: ['default', 'json'],
    outputFile: { json: '.test-results/sam.json' },
  },
});
