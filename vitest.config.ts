import { readFile } from 'node:fs/promises';
import { defineConfig, type Plugin } from 'vitest/config';

// Vitest runs n8n-workflow's ESM build through vite (ES modules in a package without "type": "module" are
// not loadable by Node as they are). Each of those files ends in a sourceMappingURL whose map names
// TypeScript sources the package does not ship, and vite warns once per file ("Sourcemap for ... points to
// missing source files", about 90 lines a run). Loading dependency files without their map comment removes
// the cause: stack traces then point into the shipped JavaScript, which is the code that actually runs.
const SOURCE_MAP_COMMENT = /^\/\/# sourceMappingURL=.*$/gm;
const DEPENDENCY_SCRIPT = /\/node_modules\/.+\.[cm]?js$/;

function dependenciesWithoutSourceMaps(): Plugin {
  return {
    name: 'dependencies-without-source-maps',
    enforce: 'pre',
    async load(id) {
      const file = id.split('?')[0];
      if (!DEPENDENCY_SCRIPT.test(file)) return null;
      const code = await readFile(file, 'utf8');
      if (!code.includes('//# sourceMappingURL=')) return null;
      return { code: code.replace(SOURCE_MAP_COMMENT, ''), map: null };
    },
  };
}

export default defineConfig({
  plugins: [dependenciesWithoutSourceMaps()],
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
