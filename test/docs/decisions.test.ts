// A newcomer finds a decision from docs/decisions/README.md in one step, and every pointer the code, scripts and
// docs make into docs/decisions/ names a file and (when quoted) a heading that exist. The long-form
// docs/assumptions.md is gone: nothing may point at it any more.
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const folder = path.join(root, 'docs/decisions');
const areaFiles = readdirSync(folder).filter((f) => f.endsWith('.md') && f !== 'README.md');
const index = readFileSync(path.join(folder, 'README.md'), 'utf8');

function headings(file: string): string[] {
  const text = readFileSync(path.join(folder, file), 'utf8');
  return [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1]!.trim());
}

// GitHub's anchor of a heading: lower case, punctuation but hyphens and underscores dropped, spaces to hyphens.
function anchor(heading: string): string {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

const SOURCE_DIRS = ['packages', 'src', 'nodes', 'credentials', 'test', 'e2e', 'bench', 'scripts', 'docs', '.github'];
const SKIP = /(^|\/)(node_modules|dist|\.cache)(\/|$)/;

function sourceFiles(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = path.join(dir, entry.name);
    if (SKIP.test(rel)) continue;
    if (entry.isDirectory()) sourceFiles(rel, out);
    else if (/\.(ts|mjs|cjs|js|md|sh|yml|json|html)$/.test(entry.name)) out.push(rel);
  }
  return out;
}

// This file names the old path on purpose.
const SELF = path.join('test', 'docs', 'decisions.test.ts');
const files = [...SOURCE_DIRS.filter((d) => existsSync(path.join(root, d))).flatMap((d) => sourceFiles(d)), 'README.md'].filter(
  (f) => f !== SELF,
);

describe('docs/decisions', () => {
  it('has one file per area, each decision as context / decision / consequence', () => {
    expect(areaFiles.length).toBeGreaterThanOrEqual(9);
    for (const file of areaFiles) {
      const text = readFileSync(path.join(folder, file), 'utf8');
      const sections = text.split(/^## /m).slice(1);
      expect(sections.length, file).toBeGreaterThan(2);
      for (const section of sections) {
        const title = section.split('\n')[0];
        const isTable = /^\| Context/m.test(section);
        if (!isTable) {
          expect(section, `${file}: ${title}`).toMatch(/\*\*Context:\*\*/);
          expect(section, `${file}: ${title}`).toMatch(/\*\*Decision:\*\*/);
          expect(section, `${file}: ${title}`).toMatch(/\*\*Consequence:\*\*/);
        }
      }
    }
  });

  it('indexes every decision of every area with a working link', () => {
    const missing: string[] = [];
    for (const file of areaFiles) {
      for (const heading of headings(file)) {
        if (!index.includes(`(${file}#${anchor(heading)})`)) missing.push(`${file}#${anchor(heading)}`);
      }
    }
    expect(missing).toEqual([]);
    const links = [...index.matchAll(/\]\(([\w.-]+\.md)(?:#([\w-]+))?\)/g)];
    for (const [, file, hash] of links) {
      expect(areaFiles, `index links ${file}`).toContain(file);
      if (hash) expect(headings(file!).map(anchor), `index links ${file}#${hash}`).toContain(hash);
    }
  });

  it('is what the code points to: each pointer names a file and heading that exist', () => {
    const bad: string[] = [];
    for (const file of files) {
      const text = readFileSync(path.join(root, file), 'utf8');
      if (/docs\/assumptions\.md/.test(text)) bad.push(`${file}: points at docs/assumptions.md`);
      // The area files are the whole of docs/decisions/: no folder below it (the old _incoming/ drafts are folded in).
      for (const m of text.matchAll(/docs\/decisions\/([\w.-]+)\//g)) bad.push(`${file}: points into docs/decisions/${m[1]}/`);
      for (const m of text.matchAll(/docs\/decisions\/([\w.-]+\.md)(?:,?\s*"([^"]+)")?/g)) {
        const [, target, heading] = m;
        if (target === 'README.md') continue;
        if (!areaFiles.includes(target!)) bad.push(`${file}: no docs/decisions/${target}`);
        else if (heading && !headings(target!).includes(heading)) bad.push(`${file}: no "${heading}" in ${target}`);
      }
    }
    expect(bad).toEqual([]);
    expect(existsSync(path.join(root, 'docs/assumptions.md'))).toBe(false);
  });
});
