/**
 * What the workspace cannot check by itself. npm workspaces resolve `@company-data/core` by name, but
 * a relative import can still reach into another package's folder, a library can be imported without
 * being declared (it resolves from the hoisted node_modules all the same), and the n8n bundles may
 * carry no library but n8n's peer: the node package and the core it bundles use only n8n-workflow,
 * zod and node:crypto, or n8n Cloud's rules fail.
 */
import { builtinModules } from 'node:module';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');

interface Pkg {
  manifest: string;
  /** The folders holding the package's sources. */
  dirs: string[];
}

const PACKAGES: Pkg[] = [
  { manifest: 'package.json', dirs: ['nodes', 'credentials', 'src'] },
  { manifest: 'packages/core/package.json', dirs: ['packages/core'] },
  { manifest: 'packages/company-data/package.json', dirs: ['packages/company-data/src'] },
];

/** What n8n's bundles may import: the node package's sources and the core bundled into them. */
const N8N_BUNDLE_LIBRARIES = new Set(['n8n-workflow', '@company-data/core', 'zod', 'node:crypto']);

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (name === 'node_modules' || name === 'dist') continue;
    if (statSync(p).isDirectory()) tsFiles(p, out);
    else if (p.endsWith('.ts')) out.push(p);
  }
  return out;
}

/** Every module specifier of a file: static imports, re-exports, import() and require(). */
function specifiers(source: string): string[] {
  const found: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\b[^;]*?\bfrom\s*(['"])([^'"]+)\1/gm,
    /^\s*import\s*(['"])([^'"]+)\1/gm,
    /\b(?:import|require)\s*\(\s*(['"])([^'"]+)\1/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) found.push(m[2]!);
  return found;
}

function resolveTarget(file: string, spec: string): string {
  const base = resolve(dirname(file), spec);
  return [`${base}.ts`, join(base, 'index.ts'), base].find((p) => existsSync(p)) ?? base;
}

/** The package a bare specifier names: `zod/v4` → zod, `@scope/name/x` → @scope/name; undefined for node builtins. */
function packageName(spec: string): string | undefined {
  if (spec.startsWith('node:') || builtinModules.includes(spec.split('/')[0]!)) return undefined;
  const parts = spec.split('/');
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function declared(manifest: string): Set<string> {
  const json = JSON.parse(readFileSync(join(root, manifest), 'utf8')) as Record<string, Record<string, string> | undefined>;
  const own = json.name as unknown as string;
  return new Set([own, ...[json.dependencies, json.devDependencies, json.peerDependencies].flatMap((d) => Object.keys(d ?? {}))]);
}

const sources = PACKAGES.map((pkg) => ({ pkg, files: pkg.dirs.flatMap((d) => tsFiles(join(root, d))) }));

describe('package boundaries', () => {
  it('finds the sources of each package', () => {
    for (const { pkg, files } of sources) expect(files.length, pkg.manifest).toBeGreaterThan(10);
  });

  it('no relative import leaves its package (other packages are imported by name)', () => {
    const offending: string[] = [];
    for (const { pkg, files } of sources) {
      for (const file of files) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          if (!spec.startsWith('.')) continue;
          const target = relative(root, resolveTarget(file, spec));
          if (target !== pkg.manifest && !pkg.dirs.some((d) => target.startsWith(`${d}/`)))
            offending.push(`${relative(root, file)} -> ${target}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it("each package's manifest declares every library its sources import", () => {
    const missing: string[] = [];
    for (const { pkg, files } of sources) {
      const names = declared(pkg.manifest);
      for (const file of files) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          const name = spec.startsWith('.') ? undefined : packageName(spec);
          if (name && !names.has(name)) missing.push(`${relative(root, file)}: ${name} (not in ${pkg.manifest})`);
        }
      }
    }
    expect(missing).toEqual([]);
  });

  it('the n8n bundles (node package and core) use no library but the n8n peer, zod and node:crypto', () => {
    const offending: string[] = [];
    for (const { pkg, files } of sources.filter((s) => s.pkg.manifest !== 'packages/company-data/package.json')) {
      for (const file of files) {
        for (const spec of specifiers(readFileSync(file, 'utf8'))) {
          if (spec.startsWith('.')) continue;
          const name = spec.startsWith('node:') ? spec : packageName(spec);
          if (!N8N_BUNDLE_LIBRARIES.has(name ?? spec)) offending.push(`${relative(root, file)}: ${spec} (${pkg.manifest})`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it('the checks see a violation when one is there', () => {
    const fake = join(root, 'src/n8n/example.ts');
    expect(relative(root, resolveTarget(fake, '../../packages/company-data/src/sandbox'))).toBe(
      'packages/company-data/src/sandbox/index.ts',
    );
    expect(
      specifiers("import x from './a';\nexport { y } from \"../b\";\nconst z = await import('c');\nconst w = Array.from(', ');"),
    ).toEqual(['./a', '../b', 'c']);
    expect(['zod/v4', '@modelcontextprotocol/sdk/types.js', 'node:fs', 'fs/promises'].map(packageName)).toEqual([
      'zod',
      '@modelcontextprotocol/sdk',
      undefined,
      undefined,
    ]);
    expect(declared('packages/core/package.json').has('undici')).toBe(false);
  });
});
