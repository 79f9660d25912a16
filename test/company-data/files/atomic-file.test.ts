import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { writeFileAtomic } from '../../../packages/company-data/src/files/atomic-file';

describe('writeFileAtomic: the mode of the file it replaces', () => {
  const dir = mkdtempSync(join(tmpdir(), 'atomic-mode-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const modeOf = (p: string) => statSync(p).mode & 0o777;

  it('a new file gets the mode asked for', () => {
    const p = join(dir, 'new.json');
    writeFileAtomic(p, 'a', 0o600);
    expect(modeOf(p)).toBe(0o600);
  });

  it('an existing file keeps its mode, within the mode asked for: a private file never stays readable by others', () => {
    const wide = join(dir, 'wide.json');
    writeFileSync(wide, 'old');
    chmodSync(wide, 0o644);
    writeFileAtomic(wide, 'new', 0o600);
    expect([modeOf(wide), readFileSync(wide, 'utf8')]).toEqual([0o600, 'new']);

    const narrow = join(dir, 'narrow.json');
    writeFileSync(narrow, 'old');
    chmodSync(narrow, 0o400);
    writeFileAtomic(narrow, 'new', 0o600);
    expect(modeOf(narrow)).toBe(0o400);
  });

  it('without a mode an existing file keeps its own', () => {
    const p = join(dir, 'shared.csv');
    writeFileSync(p, 'old');
    chmodSync(p, 0o664);
    writeFileAtomic(p, 'new');
    expect(modeOf(p)).toBe(0o664);
  });
});
