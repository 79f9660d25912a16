// ESLint for the repo's own scripts and the tool package (not the n8n community-node lint, which is
// eslint.config.mjs, staged by scripts/lint-n8n.sh). Run: npx eslint -c eslint.scripts.config.mjs e2e bench scripts packages/company-data/src
// Recommended rules only. typescript-eslint is a dev dependency of its own (8.73: the 8.35 that @n8n/node-cli
// brings for the n8n lint peers on TypeScript below 5.9).
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const unused = ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }];

export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', 'e2e/n8n-runtime/**', 'e2e/inspector/**', 'e2e/scanner/**'] },
  {
    files: ['e2e/**/*.mjs', 'bench/**/*.mjs', 'bench/**/*.cjs', 'scripts/**/*.mjs'],
    extends: [js.configs.recommended],
    // WebSocket: a global since Node 22 (e2e/screenshot.mjs), missing from globals' node list.
    languageOptions: { ecmaVersion: 2024, sourceType: 'module', globals: { ...globals.node, WebSocket: 'readonly' } },
    rules: { 'no-unused-vars': unused },
  },
  { files: ['**/*.cjs'], languageOptions: { sourceType: 'commonjs' } },
  {
    files: ['packages/company-data/src/**/*.ts', 'bench/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommended],
    languageOptions: { globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-unused-vars': unused },
  },
);
