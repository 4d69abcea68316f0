import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/built-renderer.ts'],
    // argon2 hashing is deliberately slow; real listeners start in milliseconds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
