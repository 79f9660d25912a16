/**
 * What ships where, checked rather than remembered: the n8n node package (nodes/, credentials/, src/)
 * never imports the tool package (packages/cli), nor any library but n8n's peer and zod (bundled),
 * and node files reach shared code only through src/n8n, the one module the build shares.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const NODE_SIDE = ['nodes', 'credentials', 'src'];
const ALLOWED_LIBRARIES = new Set(['n8n-workflow', 'zod/v4', 'node:crypto']);

function tsFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
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

const files = NODE_SIDE.flatMap((d) => tsFiles(join(root, d)));

describe('package boundaries', () => {
  it('finds the node-side sources', () => {
    expect(files.length).toBeGreaterThan(40);
    expect(files.some((f) => f.endsWith('CompanyDataTrigger.node.ts'))).toBe(true);
  });

  it('node-side code never imports the tool package', () => {
    const offending: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolveTarget(file, spec));
        if (!NODE_SIDE.some((d) => target.startsWith(`${d}/`))) offending.push(`${relative(root, file)} -> ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('node-side code uses no library but the n8n peer, zod (bundled) and node:crypto', () => {
    const offending: string[] = [];
    for (const file of files) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.') && !ALLOWED_LIBRARIES.has(spec)) offending.push(`${relative(root, file)}: ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('node and credential files import shared code from src/n8n only (the one shared bundle)', () => {
    const offending: string[] = [];
    for (const file of files.filter((f) => /\/(nodes|credentials)\//.test(f))) {
      for (const spec of specifiers(readFileSync(file, 'utf8'))) {
        if (!spec.startsWith('.')) continue;
        const target = relative(root, resolveTarget(file, spec));
        if (target.startsWith('src/') && target !== 'src/n8n/index.ts') offending.push(`${relative(root, file)} -> ${target}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('the checker sees a violation when one is there', () => {
    const fake = join(root, 'src/n8n/example.ts');
    const target = relative(root, resolveTarget(fake, '../../packages/cli/src/sandbox'));
    expect(target).toBe('packages/cli/src/sandbox/index.ts');
    expect(
      specifiers("import x from './a';\nexport { y } from \"../b\";\nconst z = await import('c');\nconst w = Array.from(', ');"),
    ).toEqual(['./a', '../b', 'c']);
  });
});
