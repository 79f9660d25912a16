/**
 * Issue 22, point 8: CSV files as Estonian teams have them (Excel on Windows in an Estonian locale:
 * Windows-1257 with semicolons; "Unicode text": UTF-16LE with BOM and tabs; UTF-8 with or without BOM),
 * built byte by byte, enriched against the sandbox and read back in the same encoding, separator and
 * line ending.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CompanyDataClient } from '../../../packages/company-data/src/index';
import { startSandbox } from '../../../packages/company-data/src/sandbox';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { enrichTable } from '../../../packages/company-data/src/sheets/enrich';
import { contentKind } from '../../../packages/company-data/src/sheets/file-kind';

type Sb = Awaited<ReturnType<typeof startSandbox>>;
let sb: Sb;
let client: CompanyDataClient;
let dir: string;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, seed: 1, companies: 200 });
  client = new CompanyDataClient({ baseUrl: sb.url, apiKey: sb.apiKey });
  dir = mkdtempSync(join(tmpdir(), 'csv-enc-'));
});
afterAll(async () => {
  await client.close();
  await sb.close();
  rmSync(dir, { recursive: true, force: true });
});

/** Windows-1257 written by hand (not by the code under test): ASCII, and the Estonian letters. */
const baltic: Record<string, number> = {
  õ: 0xf5,
  ä: 0xe4,
  ö: 0xf6,
  ü: 0xfc,
  š: 0xf0,
  ž: 0xfe,
  Õ: 0xd5,
  Ä: 0xc4,
  Ö: 0xd6,
  Ü: 0xdc,
  Š: 0xd0,
  Ž: 0xde,
};
function cp1257(text: string): Buffer {
  return Buffer.from(
    [...text].map((ch) => {
      if (ch.charCodeAt(0) < 0x80) return ch.charCodeAt(0);
      const b = baltic[ch];
      if (b === undefined) throw new Error(`test encoder lacks ${ch}`);
      return b;
    }),
  );
}

interface Case {
  name: string;
  sep: string;
  eol: string;
  encode: (text: string) => Buffer;
  decode: (bytes: Buffer) => string;
  bom: Buffer;
}

const cases: Case[] = [
  {
    name: 'Windows-1257, semicolons, CRLF',
    sep: ';',
    eol: '\r\n',
    encode: cp1257,
    decode: (b) => new TextDecoder('windows-1257').decode(b),
    bom: Buffer.alloc(0),
  },
  {
    name: 'UTF-16LE with BOM, tabs, CRLF (Excel "Unicode text")',
    sep: '\t',
    eol: '\r\n',
    encode: (t) => Buffer.from(t, 'utf16le'),
    decode: (b) => b.toString('utf16le'),
    bom: Buffer.from([0xff, 0xfe]),
  },
  {
    name: 'UTF-8 with BOM, semicolons, CRLF',
    sep: ';',
    eol: '\r\n',
    encode: (t) => Buffer.from(t),
    decode: (b) => b.toString('utf8'),
    bom: Buffer.from([0xef, 0xbb, 0xbf]),
  },
  {
    name: 'UTF-8 without BOM, commas, LF',
    sep: ',',
    eol: '\n',
    encode: (t) => Buffer.from(t),
    decode: (b) => b.toString('utf8'),
    bom: Buffer.alloc(0),
  },
];

describe('CSV encodings: enrich keeps encoding, separator and line ending', () => {
  for (const [n, c] of cases.entries()) {
    it(c.name, async () => {
      const fx = sb.fixtures.companies;
      const lines = [
        ['registrikood', 'kontaktisik', 'märkus'],
        [fx.active!.registry_code, 'Jüri Õunapuu', 'šokolaad ja žürii'],
        [fx.vat_ended!.registry_code, 'Ülle Äär', 'Ööbik'],
      ];
      const original = lines.map((l) => c.encode(l.join(c.sep) + c.eol));
      const file = join(dir, `f${n}.csv`);
      writeFileSync(file, Buffer.concat([c.bom, ...original]));
      expect(contentKind(readFileSync(file), true).kind).toBe('text');

      await enrichTable({ table: new CsvTable(file), client, column: 'registrikood', fields: ['name'], stateDir: join(dir, `s${n}`) });

      const out = readFileSync(file);
      expect(out.subarray(0, c.bom.length).equals(c.bom)).toBe(true);
      // Each line starts with its original bytes and the separator; every line ends with the same line ending.
      const eol = c.encode(c.eol);
      let at = c.bom.length;
      for (const line of original) {
        const body = line.subarray(0, line.length - eol.length);
        expect(out.subarray(at, at + body.length).equals(body)).toBe(true);
        expect(out.subarray(at + body.length, at + body.length + c.encode(c.sep).length).equals(c.encode(c.sep))).toBe(true);
        const end = out.indexOf(eol, at);
        expect(end).toBeGreaterThan(at);
        at = end + eol.length;
      }
      expect(at).toBe(out.length);
      if (c.eol === '\n') expect(out.includes(c.encode('\r'))).toBe(false);
      const text = c.decode(out.subarray(c.bom.length));
      const rows = parse(text, { delimiter: c.sep }) as string[][];
      const h = rows[0]!;
      expect(h.slice(0, 3)).toEqual(['registrikood', 'kontaktisik', 'märkus']);
      expect(h).toContain('company_data_match_name');
      expect(rows[1]![h.indexOf('company_data_match_name')]).toBe(fx.active!.name);
      expect(rows[2]![h.indexOf('company_data_match_name')]).toBe(fx.vat_ended!.name);
      expect(rows[1]![1]).toBe('Jüri Õunapuu');
      expect(/[õäöüšžÕÄÖÜŠŽ]/.test(fx.active!.name + fx.vat_ended!.name)).toBe(true);
      // The whole-table path reads the same file alike.
      const snap = await new CsvTable(file).read();
      expect(snap.rows[0]![2]).toBe('šokolaad ja žürii');
    });
  }

  it('UTF-16LE without BOM is told by its zero bytes; Windows-1257 after 64 KiB of ASCII is told further on', async () => {
    const file = join(dir, 'nobom16.csv');
    writeFileSync(file, Buffer.from('code\tnote\r\n1\tÕun\r\n', 'utf16le'));
    expect((await new CsvTable(file).read()).rows[0]).toEqual(['1', 'Õun']);
    const long = join(dir, 'long1257.csv');
    const ascii = 'code;note\r\n' + '1;plain\r\n'.repeat(9000);
    writeFileSync(long, Buffer.concat([cp1257(ascii), cp1257('2;Põder\r\n')]));
    const t = new CsvTable(long);
    await t.rewrite((_row, i) => (i === 0 ? [[2, 'x']] : i === 9001 ? [[2, 'Žõ']] : undefined), 3);
    const back = readFileSync(long);
    const last = cp1257('2;Põder;Žõ\r\n');
    expect(back.subarray(back.length - last.length).equals(last)).toBe(true);
    expect(back.subarray(0, 12).equals(cp1257('code;note;x\r'))).toBe(true);
  });

  it('a value the encoding cannot hold is refused naming the column and the character; the file is left as it was', async () => {
    const file = join(dir, 'cyr.csv');
    const bytes = cp1257('code;nimi\r\n1;Õie\r\n');
    writeFileSync(file, bytes);
    const t = new CsvTable(file);
    await expect(t.rewrite((_row, i) => (i === 1 ? [[1, 'Дмитрий']] : undefined), 2)).rejects.toThrow(
      /is Windows-1257 \(Baltic\) text, which cannot hold "Д" \(U\+0414\) of the value for column "nimi" on row 2; the file was not changed/,
    );
    expect(readFileSync(file).equals(bytes)).toBe(true);
    const whole = new CsvTable(file);
    await whole.read();
    await expect(whole.write([{ row: 1, col: 1, value: 'Дмитрий' }])).rejects.toThrow(/cannot hold "Д"/);
  });

  it('binary data is still refused; text that is neither UTF-8 nor Windows-1257 is refused naming both', async () => {
    const noise = join(dir, 'noise.csv');
    writeFileSync(noise, Buffer.from([0x1b, 0x5b, 0x32, 0x4a, 0x41, 0x80, 0xff, 0x02, 0x03, 0x41]));
    await expect(new CsvTable(noise).read()).rejects.toThrow(/it holds binary data/);
    const zip = join(dir, 'book.csv');
    writeFileSync(zip, Buffer.from('PK\u0003\u0004rest'));
    await expect(new CsvTable(zip).read()).rejects.toThrow(/ZIP archive/);
    const odd = join(dir, 'odd.csv');
    writeFileSync(odd, Buffer.from([0x61, 0x3b, 0x62, 0x0d, 0x0a, 0x9a, 0xe9, 0x0d, 0x0a]));
    await expect(new CsvTable(odd).read()).rejects.toThrow(/neither UTF-8 nor Windows-1257 \(byte 0x9A at offset 5\)/);
    // UTF-8 at the start, not UTF-8 further on: the streamed pass names the encoding.
    const late = join(dir, 'late.csv');
    writeFileSync(late, Buffer.concat([Buffer.from('a;b\n' + 'õ;x\n'.repeat(20000)), Buffer.from([0x31, 0x3b, 0xf5, 0x0a])]));
    const rows = async () => {
      for await (const _ of new CsvTable(late).rows()) void _;
    };
    await expect(rows()).rejects.toThrow(/cannot be read: it is not valid UTF-8 text/);
  });
});
