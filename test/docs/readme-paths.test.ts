// A newcomer follows the README literally: every repository file it names must exist, and every folder it
// writes results into (`--out out/…`, `--pack-destination out`) must be in a fresh clone, because the CLI
// refuses a missing output folder before doing anything.
import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(__dirname, '../..');
const readme = readFileSync(path.join(root, 'README.md'), 'utf8');

// Paths of files kept in the repository; build outputs (dist/) and results (out/…) are made by the commands.
const SOURCE_PATH = /(?<![\w./-])(?:\.github|docs|examples|scripts|e2e|bench)\/[\w./-]*\w/g;
const OUTPUT_TARGET = /(?:--out|--pack-destination)\s+([^\s`]+)|events-to-sheet\s+(out\/[^\s`]+)/g;

describe('README', () => {
  it('names only repository files that exist', () => {
    const named = [...new Set(readme.match(SOURCE_PATH) ?? [])];
    expect(named.length).toBeGreaterThan(5);
    expect(named.filter((p) => !existsSync(path.join(root, p)))).toEqual([]);
  });

  it('runs its shell examples on sheets that exist (results go to out/)', () => {
    const shell = [...readme.matchAll(/```bash\n([\s\S]*?)```/g)].map((m) => m[1]!).join('\n');
    const sheets = [...shell.matchAll(/(?<![\w./-])([\w./-]+\.(?:csv|xlsx))\b/g)].map((m) => m[1]!);
    const inputs = [...new Set(sheets.filter((f) => !f.startsWith('out/')))];
    expect(inputs.length).toBeGreaterThan(1);
    expect(inputs.filter((f) => !existsSync(path.join(root, f)))).toEqual([]);
  });

  it('writes results only into folders a fresh clone has, inside the repository only under the ignored out/', () => {
    const targets = [...readme.matchAll(OUTPUT_TARGET)].map((m) => (m[1] ?? m[2])!);
    expect(targets.length).toBeGreaterThan(2);
    for (const target of targets) {
      const folder = target.endsWith('.csv') || target.endsWith('.xlsx') ? path.dirname(target) : target;
      expect(folder, `output folder of ${target}`).toBe('out');
    }
    expect(statSync(path.join(root, 'out')).isDirectory()).toBe(true);
    expect(readFileSync(path.join(root, 'out', '.gitignore'), 'utf8')).toMatch(/^\*$/m);
  });
});
