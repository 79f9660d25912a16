import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // jest-mock-extended v4 requires '@jest/globals', which only loads inside Jest: this setup file
    // answers that require with vitest's vi (a vite alias cannot reach a require in node_modules).
    setupFiles: ['test/support/n8n-jest-globals.ts'],
  },
});
