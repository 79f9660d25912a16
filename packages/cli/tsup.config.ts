import { defineConfig, type Options } from 'tsup';
import { nodeBundle } from '../../tsup.common';

/**
 * The tool package `company-data`: the CLI, the Sheets sync module, the sandbox and the typed
 * library entry. Its dependencies are bundled, so `npm i -g company-data` installs one folder and
 * fetches nothing else. Run from the repo root (`npm run build`), which also builds the node package.
 */
const common: Options = {
  ...nodeBundle,
  noExternal: [/.*/],
  outDir: 'packages/cli/dist',
};

export default defineConfig([
  { ...common, entry: { index: 'packages/cli/src/index.ts' }, dts: true },
  { ...common, entry: { sheets: 'packages/cli/src/sheets/index.ts' }, dts: true },
  { ...common, entry: { 'cli/main': 'packages/cli/src/cli/main.ts' }, banner: { js: '#!/usr/bin/env node' } },
]);
