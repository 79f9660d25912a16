/**
 * The XLSX table reads and saves through the worksheet's XML (packages/company-data/src/sheets/xlsx). Workbooks here are
 * written by hand as Excel and other producers write them (shared strings, prefixed namespaces,
 * cells and rows without r, a calculation chain), and by exceljs; exceljs is also the independent
 * reader that checks what we save.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { afterAll, describe, expect, it } from 'vitest';
import { XlsxTable } from '../../../packages/company-data/src/sheets/xlsx-table';
import { SheetScanner, type SheetPiece } from '../../../packages/company-data/src/sheets/xlsx/sheet-xml';

const dir = mkdtempSync(join(tmpdir(), 'xlsx-package-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

const NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

interface HandMade {
  sheet: string;
  other?: string;
  sharedStrings?: string[];
  styles?: string;
  calcChain?: boolean;
  date1904?: boolean;
}

/** A minimal package as Excel lays it out: sheet "Leads" (sheet1.xml) and optionally "Notes" (sheet2.xml). */
async function handMade(o: HandMade): Promise<string> {
  const zip = new JSZip();
  const overrides = [
    '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>',
    '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>',
    o.other
      ? '<Override PartName="/xl/worksheets/sheet2.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>'
      : '',
    o.sharedStrings
      ? '<Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/>'
      : '',
    o.styles
      ? '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>'
      : '',
    o.calcChain
      ? '<Override PartName="/xl/calcChain.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.calcChain+xml"/>'
      : '',
  ].join('');
  zip.file(
    '[Content_Types].xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>${overrides}</Types>`,
  );
  zip.file(
    '_rels/.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
  );
  zip.file(
    'xl/workbook.xml',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<workbook xmlns="${NS}" xmlns:r="${REL}">${o.date1904 ? '<workbookPr date1904="1"/>' : ''}<sheets><sheet name="Leads" sheetId="1" r:id="rId1"/>${o.other ? '<sheet name="Notes &amp; more" sheetId="2" r:id="rId2"/>' : ''}</sheets></workbook>`,
  );
  const rels = [
    `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>`,
    o.other ? `<Relationship Id="rId2" Type="${REL}/worksheet" Target="/xl/worksheets/sheet2.xml"/>` : '',
    o.sharedStrings ? `<Relationship Id="rId3" Type="${REL}/sharedStrings" Target="sharedStrings.xml"/>` : '',
    o.styles ? `<Relationship Id="rId4" Type="${REL}/styles" Target="styles.xml"/>` : '',
    o.calcChain ? `<Relationship Id="rId5" Type="${REL}/calcChain" Target="calcChain.xml"/>` : '',
  ].join('');
  zip.file(
    'xl/_rels/workbook.xml.rels',
    `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels}</Relationships>`,
  );
  zip.file('xl/worksheets/sheet1.xml', o.sheet);
  if (o.other) zip.file('xl/worksheets/sheet2.xml', o.other);
  if (o.sharedStrings)
    zip.file(
      'xl/sharedStrings.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<sst xmlns="${NS}" count="${o.sharedStrings.length}" uniqueCount="${o.sharedStrings.length}">${o.sharedStrings.map((s) => `<si>${s}</si>`).join('')}</sst>`,
    );
  if (o.styles) zip.file('xl/styles.xml', o.styles);
  if (o.calcChain)
    zip.file(
      'xl/calcChain.xml',
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<calcChain xmlns="${NS}"><c r="B3" i="1"/></calcChain>`,
    );
  const path = join(dir, `hand-${++n}.xlsx`);
  writeFileSync(path, await zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE' }));
  return path;
}

const sheetXml = (rows: string, head = '<dimension ref="A1:C3"/>') =>
  `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<worksheet xmlns="${NS}" xmlns:r="${REL}">${head}<sheetData>${rows}</sheetData><mergeCells count="1"><mergeCell ref="D1:E1"/></mergeCells></worksheet>`;

// Style 1: a built-in date format (14); style 2: a custom one; style 3: bold text, not a date.
const styles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n<styleSheet xmlns="${NS}"><numFmts count="1"><numFmt numFmtId="164" formatCode="dd&quot;.&quot;mm&quot;.&quot;yyyy"/></numFmts><fonts count="2"><font/><font><b/></font></fonts><cellXfs count="4"><xf numFmtId="0" fontId="0"/><xf numFmtId="14" fontId="0" applyNumberFormat="1"/><xf numFmtId="164" fontId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" applyFont="1"/></cellXfs></styleSheet>`;

async function exceljsRead(path: string) {
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(path);
  return wb;
}

async function entries(path: string): Promise<Map<string, string>> {
  const zip = await JSZip.loadAsync(readFileSync(path));
  const out = new Map<string, string>();
  for (const name of Object.keys(zip.files)) if (!zip.files[name]!.dir) out.set(name, await zip.file(name)!.async('string'));
  return out;
}

describe('reading a worksheet as Excel writes it', () => {
  it('shared strings (rich text without phonetic runs), inline strings, numbers, booleans, errors, formulas and dates', async () => {
    const path = await handMade({
      styles,
      date1904: false,
      sharedStrings: [
        '<t>registry code</t>',
        '<r><rPr><b/></rPr><t>Lõuna</t></r><r><t xml:space="preserve"> OÜ</t></r><rPh sb="0" eb="1"><t>ignored</t></rPh>',
        '<t>a &amp; b_x000D_</t>',
      ],
      sheet: sheetXml(
        '<row r="1" spans="1:3"><c r="A1" t="s"><v>0</v></c><c r="B1" t="s" s="3"><v>1</v></c></row>' +
          '<row r="2"><c r="A2"><v>10137319</v></c><c r="B2" t="inlineStr"><is><t>inline &lt;x&gt;</t></is></c><c r="C2" t="b"><v>1</v></c></row>' +
          '<row r="3"><c r="A3" t="e"><v>#N/A</v></c><c r="B3"><f>1+1</f><v>2</v></c><c r="C3" t="str"><f>"x"&amp;"y"</f><v>xy</v></c></row>' +
          '<row r="5"><c r="A5" s="1"><v>45292</v></c><c r="B5" s="2"><v>45292.5</v></c><c r="C5"><v>1.5E-3</v></c><c r="D5" t="s"><v>2</v></c></row>',
      ),
    });
    const t = new XlsxTable(path);
    expect(await t.read()).toEqual({
      header: ['registry code', 'Lõuna OÜ'],
      rows: [
        ['10137319', 'inline <x>', 'true'],
        ['#N/A', '2', 'xy'],
        ['', ''],
        ['2024-01-01', '2024-01-01T12:00:00.000Z', '0.0015', 'a & b\r'],
      ],
    });
  });

  it('1904 dates, a prefixed namespace, cells and rows without r, an empty <sheetData/>', async () => {
    const prefixed = `<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="${NS}"><x:sheetData><x:row><x:c t="inlineStr"><x:is><x:t>code</x:t></x:is></x:c><x:c t="inlineStr"><x:is><x:t>day</x:t></x:is></x:c></x:row><x:row><x:c><x:v>10137319</x:v></x:c><x:c s="1"><x:v>43830</x:v></x:c></x:row></x:sheetData></x:worksheet>`;
    const t = new XlsxTable(await handMade({ sheet: prefixed, styles, date1904: true }));
    expect(await t.read()).toEqual({ header: ['code', 'day'], rows: [['10137319', '2024-01-01']] });

    const empty = new XlsxTable(await handMade({ sheet: sheetXml('', '').replace('<sheetData></sheetData>', '<sheetData/>') }));
    expect(await empty.read()).toEqual({ header: [], rows: [] });
  });

  it('saves into such sheets: rows without r keep their numbers when a row is added before them', async () => {
    const noR = `<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="${NS}"><x:sheetData><x:row r="1"><x:c t="inlineStr"><x:is><x:t>code</x:t></x:is></x:c></x:row><x:row r="3"><x:c><x:v>3</x:v></x:c></x:row><x:row><x:c><x:v>4</x:v></x:c><x:extLst><x:ext uri="{row-ext}"/></x:extLst></x:row></x:sheetData></x:worksheet>`;
    const path = await handMade({ sheet: noR });
    const t = new XlsxTable(path);
    expect((await t.read()).rows).toEqual([[''], ['3'], ['4']]);
    await t.write([
      { row: 1, col: 0, value: 'two' },
      { row: 3, col: 1, value: 'beside four' },
    ]);
    await t.flush();
    expect((await new XlsxTable(path).read()).rows).toEqual([['two'], ['3'], ['4', 'beside four']]);
    // exceljs cannot read prefixed worksheets at all (LibreOffice reads this file as A2 two, A3 3, A4 4, B4 beside four).
    const sheet = (await entries(path)).get('xl/worksheets/sheet1.xml')!;
    expect([...sheet.matchAll(/<x:row r="(\d+)"/g)].map((m) => m[1])).toEqual(['1', '2', '3', '4']);
    // What a row holds after its cells stays after them.
    expect(sheet).toContain(
      '<x:row r="4"><x:c r="A4"><x:v>4</x:v></x:c><x:c r="B4" t="inlineStr"><x:is><x:t xml:space="preserve">beside four</x:t></x:is></x:c><x:extLst><x:ext uri="{row-ext}"/></x:extLst></x:row>',
    );

    const empty = await handMade({ sheet: sheetXml('', '').replace('<sheetData></sheetData>', '<sheetData/>') });
    const e = new XlsxTable(empty);
    await e.write([{ row: 0, col: 0, value: 'first' }]);
    await e.flush();
    expect(await new XlsxTable(empty).read()).toEqual({ header: ['first'], rows: [] });

    const prefixedEmpty = await handMade({
      sheet: `<?xml version="1.0" encoding="UTF-8"?><x:worksheet xmlns:x="${NS}"><x:sheetData/></x:worksheet>`,
    });
    const pe = new XlsxTable(prefixedEmpty);
    await pe.write([{ row: 0, col: 0, value: 'first' }]);
    await pe.flush();
    expect((await entries(prefixedEmpty)).get('xl/worksheets/sheet1.xml')).toContain(
      '<x:sheetData><x:row r="1"><x:c r="A1" t="inlineStr"><x:is><x:t xml:space="preserve">first</x:t></x:is></x:c></x:row></x:sheetData>',
    );
  });

  it('the scanner gives the same pieces however the bytes are split', () => {
    const xml = sheetXml(
      '<row r="1"><c r="A1" t="inlineStr"><is><t>a</t></is></c></row><row r="2"/><row r="4" spans="1:1"><c r="A4"><v>4</v></c></row>',
    );
    const whole = new SheetScanner();
    const expected = [...whole.push(xml), ...whole.end()];
    const byChar = new SheetScanner();
    const pieces: SheetPiece[] = [];
    for (const ch of xml) pieces.push(...byChar.push(ch));
    pieces.push(...byChar.end());
    const joinTails = (ps: SheetPiece[]) =>
      ps.reduce<SheetPiece[]>((acc, p) => {
        const last = acc[acc.length - 1];
        if (last?.kind === 'tail' && p.kind === 'tail') acc[acc.length - 1] = { kind: 'tail', xml: last.xml + p.xml };
        else acc.push(p);
        return acc;
      }, []);
    expect(joinTails(pieces)).toEqual(joinTails(expected));
    expect(expected.filter((p) => p.kind === 'row').map((p) => (p as { r: number }).r)).toEqual([1, 2, 4]);
    expect(() => new SheetScanner().push(sheetXml('<foo/>'))).toThrow(/unexpected element inside <sheetData>/);
  });
});

describe('saving changes into the worksheet', () => {
  it('keeps every other part byte for byte, keeps styles and formulas, adds rows and columns where they belong', async () => {
    const other = sheetXml('<row r="1"><c r="A1" t="s"><v>0</v></c></row>');
    const path = await handMade({
      styles,
      other,
      calcChain: true,
      sharedStrings: ['<t>registry code</t>'],
      sheet: sheetXml(
        '<row r="1" spans="1:2" ht="20" customHeight="1"><c r="A1" t="s" s="3"><v>0</v></c><c r="B1" s="3"/></row>' +
          '<row r="2"><c r="A2"><v>10137319</v></c><c r="C2"><f>A2*2</f><v>20274638</v></c></row>' +
          '<row r="4"><c r="A4"><v>14453248</v></c></row>',
      ),
    });
    const before = await entries(path);
    const t = new XlsxTable(path);
    await t.read();
    await t.write([
      { row: 0, col: 1, value: 'name' }, // empty styled cell: style kept
      { row: 1, col: 1, value: 'Lõunaranna Tarkvara OÜ & Co <1>' },
      { row: 2, col: 1, value: 'a row that did not exist' }, // row 3, between 2 and 4
      { row: 3, col: 3, value: '=1+1' }, // a new column
      { row: 5, col: 0, value: '00123' }, // after the last row
      { row: 3, col: 0, value: '' }, // emptied
      { row: 1, col: 4, value: 'tab\there, bell\u0007, literal _x0041_' },
    ]);
    await t.flush();

    const after = await entries(path);
    for (const [name, xml] of before) {
      if (['xl/worksheets/sheet1.xml', 'xl/calcChain.xml', '[Content_Types].xml', 'xl/_rels/workbook.xml.rels'].includes(name)) continue;
      expect(after.get(name), name).toBe(xml);
    }
    expect(after.has('xl/calcChain.xml')).toBe(false);
    expect(after.get('[Content_Types].xml')).not.toContain('calcChain');
    expect(after.get('xl/_rels/workbook.xml.rels')).not.toContain('calcChain');
    const sheet = after.get('xl/worksheets/sheet1.xml')!;
    expect(sheet).toContain('<dimension ref="A1:E6"/>');
    expect(sheet).toContain('<row r="1" ht="20" customHeight="1"><c r="A1" t="s" s="3"><v>0</v></c><c r="B1" s="3" t="inlineStr">');
    expect(sheet).toContain('<mergeCells count="1"><mergeCell ref="D1:E1"/></mergeCells>');
    expect([...sheet.matchAll(/<row r="(\d+)"/g)].map((m) => m[1])).toEqual(['1', '2', '3', '4', '6']);

    // Our reader and exceljs agree on what was saved.
    const again = await new XlsxTable(path).read();
    expect(again.header).toEqual(['registry code', 'name']);
    expect(again.rows).toEqual([
      ['10137319', 'Lõunaranna Tarkvara OÜ & Co <1>', '20274638', '', 'tab\there, bell\u0007, literal _x0041_'],
      ['', 'a row that did not exist'],
      ['', '', '', '=1+1'],
      ['', ''],
      ['00123', ''],
    ]);
    const wb = await exceljsRead(path);
    const ws = wb.getWorksheet('Leads')!;
    expect(ws.getCell('B2').value).toBe('Lõunaranna Tarkvara OÜ & Co <1>');
    expect(ws.getCell('C2').value).toEqual({ formula: 'A2*2', result: 20274638 });
    expect(ws.getCell('D4').value).toBe('=1+1');
    expect(ws.getCell('A6').value).toBe('00123');
    expect(ws.getCell('B1').font?.bold).toBe(true);
    expect(wb.getWorksheet('Notes & more')!.getCell('A1').value).toBe('registry code');
  });

  it('with --out, the source stays untouched and later saves build on the output', async () => {
    const src = join(dir, 'src.xlsx');
    const wb = new ExcelJS.Workbook();
    wb.addWorksheet('Firms').addRow(['registry code']);
    wb.getWorksheet('Firms')!.addRow(['10137319']);
    await wb.xlsx.writeFile(src);
    const original = readFileSync(src);
    const out = join(dir, 'out.xlsx');
    const t = new XlsxTable(src, { sheet: 'Firms', out });
    await t.write([{ row: 0, col: 1, value: 'name' }]);
    await t.flush();
    await t.write([{ row: 1, col: 1, value: 'Lõunaranna Tarkvara OÜ' }]);
    await t.flush();
    await t.append([['14453248', 'appended']]);
    expect(readFileSync(src).equals(original)).toBe(true);
    expect(await new XlsxTable(out, { sheet: 'Firms' }).read()).toEqual({
      header: ['registry code', 'name'],
      rows: [
        ['10137319', 'Lõunaranna Tarkvara OÜ'],
        ['14453248', 'appended'],
      ],
    });
    expect(t.calls.save).toBe(3);
  });

  it('creates a workbook that does not exist, and names a missing sheet in its error', async () => {
    const path = join(dir, 'new.xlsx');
    const t = new XlsxTable(path, { sheet: 'Events' });
    await t.write([
      { row: 0, col: 0, value: 'event_id' },
      { row: 0, col: 1, value: 'type' },
    ]);
    await t.append([['evt_1', 'monitoring.change']]);
    const back = await exceljsRead(path);
    expect(back.getWorksheet('Events')!.getCell('A2').value).toBe('evt_1');
    await expect(new XlsxTable(path, { sheet: 'Nope' }).read()).rejects.toThrow('sheet: no worksheet named "Nope" in');
  });
});
