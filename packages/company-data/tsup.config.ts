import { defineConfig, type Options } from 'tsup';
import { nodeBundle } from '../../tsup.common';

/**
 * The tool package `company-data`: the CLI, the Sheets sync module, the sandbox and the typed
 * library entry. Its dependencies are bundled, so `npm i -g company-data` installs one folder and
 * fetches nothing else. Run from the repo root (`npm run build`), which also builds the node package.
 */
/**
 * Declarations inline the core (a private workspace package, never published): its names resolve to
 * the sources by path, so rollup-plugin-dts does not take it for an external library.
 */
const coreInlined = { compilerOptions: { paths: { '@company-data/core/*': ['./packages/core/*'] } } };

const common: Options = {
  ...nodeBundle,
  noExternal: [/.*/],
  outDir: 'packages/company-data/dist',
};

export default defineConfig([
  { ...common, entry: { index: 'packages/company-data/src/index.ts' }, dts: coreInlined },
  { ...common, entry: { sheets: 'packages/company-data/src/sheets/index.ts' }, dts: coreInlined },
  { ...common, entry: { 'cli/main': 'packages/company-data/src/cli/main.ts' }, banner: { js: '#!/usr/bin/env node' } },
]);
