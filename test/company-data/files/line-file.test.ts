import { appendFileSync, mkdtempSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LineFile } from '../../../packages/company-data/src/files/line-file';

const dirs: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), 'line-file-'));
  dirs.push(d);
  return d;
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('LineFile', () => {
  it('appends one line per record in one write, creates folders, and reads them back', () => {
    const path = join(tmp(), 'a', 'b', 'log.jsonl');
    const f = new LineFile(path, { mode: 0o600 });
    expect(f.read()).toEqual([]);
    f.append({ n: 1 }, { n: 2 });
    f.append({ n: 3 });
    f.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":1}\n{"n":2}\n{"n":3}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(new LineFile(path).read()).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(f.size).toBe(24);
  });

  it('skips a torn last line and ends it before the next append, so the new line is whole', () => {
    const path = join(tmp(), 'log.jsonl');
    writeFileSync(path, '{"n":1}\n{"n":');
    const f = new LineFile(path);
    expect(f.read()).toEqual([{ n: 1 }]);
    f.append({ n: 2 });
    f.close();
    expect(new LineFile(path).read()).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('a torn line left by another writer after this one opened the file is ended too', () => {
    const path = join(tmp(), 'log.jsonl');
    const f = new LineFile(path, { sync: 'manual' });
    f.append({ n: 1 });
    appendFileSync(path, '{"torn":');
    f.append({ n: 2 });
    f.close();
    expect(new LineFile(path).read()).toEqual([{ n: 1 }, { n: 2 }]);
  });

  it('rewrite replaces the file atomically; later appends go to the new file', () => {
    const path = join(tmp(), 'log.jsonl');
    const f = new LineFile(path, { mode: 0o600 });
    f.append({ n: 1 }, { n: 2 }, { n: 3 });
    expect(f.rewrite([{ n: 3 }])).toBe(8);
    f.append({ n: 4 });
    f.close();
    expect(readFileSync(path, 'utf8')).toBe('{"n":3}\n{"n":4}\n');
  });

  it('rewrite of a file not there yet creates its folders', () => {
    const path = join(tmp(), 'x', 'y', 'log.jsonl');
    const f = new LineFile(path, { mode: 0o600, sync: 'manual' });
    f.rewrite([{ scope: 1 }]);
    f.appendText('{"n":1}\n');
    f.flushAppended();
    f.close();
    expect(readFileSync(path, 'utf8')).toBe('{"scope":1}\n{"n":1}\n');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('writes again when another process replaced the file under an open one', () => {
    const dir = tmp();
    const path = join(dir, 'log.jsonl');
    const f = new LineFile(path);
    f.append({ n: 1 });
    writeFileSync(join(dir, 'new'), '{"n":0}\n');
    renameSync(join(dir, 'new'), path);
    f.append({ n: 2 });
    f.close();
    expect(new LineFile(path).read()).toEqual([{ n: 0 }, { n: 2 }]);
  });

  it('background sync keeps no file open and writes the same lines; scan gives offsets', () => {
    const path = join(tmp(), 'log.jsonl');
    const f = new LineFile(path, { sync: 'background' });
    f.appendLines(['{"k":"a"}', '{"k":"b"}']);
    f.appendText('{"k":"c"}\n');
    const seen: Array<[string, number, boolean]> = [];
    appendFileSync(path, '{"k":');
    f.scan((line, offset, complete) => seen.push([line, offset, complete]));
    expect(seen).toEqual([
      ['{"k":"a"}', 0, true],
      ['{"k":"b"}', 10, true],
      ['{"k":"c"}', 20, true],
      ['{"k":', 30, false],
    ]);
  });
});
