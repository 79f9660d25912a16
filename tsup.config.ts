import { cpSync, existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { defineConfig } from 'tsup';

/** Every *.node.ts / *.credentials.ts becomes its own bundle, so a node carries only what it imports. */
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

const shared = {
  format: ['cjs'] as const,
  target: 'node20',
  platform: 'node' as const,
  sourcemap: false,
  splitting: false,
  // No runtime dependencies: everything but the n8n-workflow peer is bundled.
  noExternal: [/^(?!n8n-workflow$).*/],
  external: ['n8n-workflow'],
};

export default defineConfig([
  {
    ...shared,
    entry: { index: 'src/index.ts' },
    dts: true,
  },
  {
    ...shared,
    entry: { sheets: 'src/sheets/index.ts' },
    dts: true,
  },
  {
    ...shared,
    entry: { 'cli/main': 'src/cli/main.ts' },
    banner: { js: '#!/usr/bin/env node' },
  },
  {
    ...shared,
    entry: { ...findEntries('nodes', '.node.ts'), ...findEntries('credentials', '.credentials.ts') },
    outDir: 'dist',
    async onSuccess() {
      copyAssets('nodes');
      copyAssets('credentials');
    },
  },
]);
