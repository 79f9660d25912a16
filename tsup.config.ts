import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import type { Plugin } from 'esbuild';
import { defineConfig, type Options } from 'tsup';
import { nodeBundle } from './tsup.common';

/**
 * The n8n node package (repo root): the nodes, the credential and the code they share. The tool
 * package (CLI, Sheets, sandbox, library) has its own config: packages/company-data/tsup.config.ts.
 */

/** Every *.node.ts / *.credentials.ts becomes its own small bundle. */
function findEntries(dir: string, suffix: string, out: Record<string, string> = {}): Record<string, string> {
  if (!existsSync(dir)) return out;
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findEntries(path, suffix, out);
    else if (name.endsWith(suffix)) out[path.replace(/\.ts$/, '')] = path;
  }
  return out;
}

/** Icons and codex files sit beside the node sources; n8n reads them from dist. */
function copyAssets(dir: string) {
  if (!existsSync(dir)) return;
  cpSync(dir, join('dist', dir), {
    recursive: true,
    filter: (src) => statSync(src).isDirectory() || /\.(svg|png|json)$/.test(src),
  });
}

const SHARED_SOURCE = resolve('src/n8n/index.ts');
const SHARED_OUTPUT = 'shared/index.js';

/**
 * Node files reach the shared code through src/n8n only; that import stays a require of
 * dist/shared/index.js, so the ten nodes load one copy of the core instead of bundling ten.
 */
const sharedCore: Plugin = {
  name: 'shared-core',
  setup(build) {
    build.onResolve({ filter: /^\.\.?\// }, (args) => {
      const importer = relative(process.cwd(), args.importer);
      if (!/^(nodes|credentials)\//.test(importer)) return undefined;
      const target = resolve(dirname(args.importer), args.path);
      if (!target.startsWith(resolve('src') + '/')) return undefined;
      if (target !== SHARED_SOURCE.replace(/\/index\.ts$/, '') && target !== SHARED_SOURCE.replace(/\.ts$/, '')) {
        return { errors: [{ text: `${importer}: import shared code from src/n8n only (found ${args.path})` }] };
      }
      return { path: relative(dirname(importer), SHARED_OUTPUT), external: true };
    });
  },
};

const common: Options = {
  ...nodeBundle,
  // No runtime dependencies: everything but the n8n-workflow peer is bundled.
  noExternal: [/^(?!n8n-workflow$).*/],
  external: ['n8n-workflow'],
  // zod's JSON-schema writer warns through console; n8n's scanner forbids console in a node package.
  esbuildOptions(options) {
    options.drop = ['console'];
  },
};

export default defineConfig([
  {
    ...common,
    entry: { 'shared/index': 'src/n8n/index.ts' },
    outDir: 'dist',
  },
  {
    ...common,
    entry: { ...findEntries('nodes', '.node.ts'), ...findEntries('credentials', '.credentials.ts') },
    outDir: 'dist',
    esbuildPlugins: [sharedCore],
    async onSuccess() {
      copyAssets('nodes');
      copyAssets('credentials');
    },
  },
]);
