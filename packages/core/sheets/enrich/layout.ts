import { lookupColumns, matchColumn, readQuery, statusWord, type PriorLookup } from '../../lookup';
import type { IncludeSection } from '../../params';
import type { WritePlan } from '../checks/preflight';
import { summaryFields, type SummaryField } from './options';
import { say, setting, SheetsError } from '../errors';

/**
 * The columns of the version before issue 22: bare field names (name, status, ...) that took over a
 * person's column of the same name, and these three. Read, never written again, except that a row
 * moved to the company_data_ columns has its old status, time and query cleared (they are the tool's
 * beyond doubt): see docs/decisions/sheets-engine.md, "Only the tool's own columns are written".
 */
const LEGACY = { status: 'enrich_status', at: 'enriched_at', query: 'enrich_query' } as const;

const KEY_HEADER_PATTERNS: RegExp[] = [
  /^(registry[\s_-]*code|reg[\s_.-]*(code|nr|no)|registrikood|registri[\s_-]*kood|business[\s_-]*id|company[\s_-]*code)$/i,
  /^(vat([\s_-]*(number|no|nr|id|code))?|kmkr([\s_-]*(nr|number))?|käibemaksukohustuslase[\s_-]*number)$/i,
  /^(company([\s_-]*name)?|name|nimi|ettevõte|ettevõtte[\s_-]*nimi|firma|organisation|organization)$/i,
];

/** How a header is matched by name, wherever it is looked up: spaces around it and case do not count. */
export const headerName = (h: string): string => h.trim().toLowerCase();

export function findKeyColumn(header: readonly string[], wanted?: string): number {
  const norm = header.map(headerName);
  if (wanted !== undefined) {
    const i = norm.indexOf(headerName(wanted));
    if (i < 0)
      throw new SheetsError({
        code: 'no_such_column',
        field: 'column',
        rule: `no header "${wanted}" in the first row (headers: ${headersOf(header)})`,
        hint: say`Set ${setting('column')} to the header of the column holding registry codes, VAT numbers or names.`,
      });
    return i;
  }
  // In a sheet the version before issue 22 enriched, columns named like summary fields are its output
  // (unless the key itself had that name, in which case the output went to matched_<field>); they must
  // not be taken for the key. The company_data_ columns never look like a key.
  const enrichedBefore = norm.includes(LEGACY.status);
  const ours = (h: string) => enrichedBefore && h in summaryFields && !norm.includes(`matched_${h}`);
  for (const skipOurs of [true, false]) {
    for (const re of KEY_HEADER_PATTERNS) {
      const i = header.findIndex((h, j) => re.test(h.trim()) && !(skipOurs && ours(norm[j]!)));
      if (i >= 0) return i;
    }
  }
  throw new SheetsError({
    code: 'no_key_column',
    field: 'column',
    rule: `no registry code, VAT number or name header found (headers: ${headersOf(header)})`,
    hint: say`Set ${setting('column')} to the header of the column holding them.`,
  });
}

const headersOf = (header: readonly string[]) => header.filter(Boolean).join(', ') || 'none';

/** What the run writes, for Table.checkWrites: its own columns, and the old version's state columns when it empties some. */
export function writePlan(L: Layout, rows: [number, number][], clearsLegacy: boolean): WritePlan {
  const created = new Set(L.headerWrites.map(([col]) => col));
  const columns = [...L.ourCols, ...(clearsLegacy && L.legacy ? legacyState(L.legacy) : [])];
  // Probe cells: the run's own header cells first (their text is the run's), then the ones it creates (empty until then).
  const own = L.ourCols.filter((c) => !created.has(c)).map((col) => ({ col, value: L.header[col]! }));
  return {
    header: L.header,
    newHeaders: L.headerWrites.map(([col, value]) => ({ col, value })),
    columns,
    rows,
    width: L.header.length,
    probe: [...own, ...L.headerWrites.map(([col]) => ({ col, value: '' }))],
  };
}

/** The old version's state columns a row moved to the company_data_ columns has emptied (clearLegacy). */
export function legacyState(legacy: NonNullable<Layout['legacy']>): number[] {
  return [legacy.statusCol, legacy.atCol, legacy.queryCol].filter((c) => c >= 0);
}

/**
 * Each wanted column's place in a header, by its name (Lay's header): where it was, when it is still
 * there; else the first column of that name (our columns never the key's); -1 when there is none.
 */
export function placeColumnsFor(L: Layout) {
  return (header: readonly string[], wanted: readonly number[], was: ReadonlyMap<number, number>): Map<number, number> => {
    const norm = header.map(headerName);
    const out = new Map<number, number>();
    const name = (c: number) => headerName(L.header[c]!);
    const keyAt = (() => {
      const w = was.get(L.keyCol) ?? -1;
      return w >= 0 && norm[w] === name(L.keyCol) ? w : norm.indexOf(name(L.keyCol));
    })();
    out.set(L.keyCol, keyAt);
    for (const c of wanted) {
      if (c === L.keyCol) continue;
      const w = was.get(c) ?? -1;
      if (w >= 0 && w !== keyAt && norm[w] === name(c)) out.set(c, w);
      else
        out.set(
          c,
          norm.findIndex((h, j) => j !== keyAt && h === name(c)),
        );
    }
    return out;
  };
}

/**
 * Where everything is: the key column, and the tool's own columns (company_data_…, the n8n Lookup's
 * names), reused when the sheet has them (an earlier run of either), else added after the last. A
 * person's column is never one of them, whatever its name.
 */
export function layOut(header: string[], column: string | undefined, fields: readonly SummaryField[], sections: readonly IncludeSection[]) {
  const keyCol = findKeyColumn(header, column);
  const width = header.length;
  const norm = header.map(headerName);
  const headerWrites: [number, string][] = [];
  const colOf = (name: string): number => {
    const i = norm.findIndex((h, j) => j !== keyCol && h === name);
    if (i >= 0) return i;
    header.push(name);
    headerWrites.push([header.length - 1, name]);
    return header.length - 1;
  };
  const statusCol = colOf(lookupColumns.status);
  const queryCol = colOf(lookupColumns.query);
  const reasonCol = colOf(lookupColumns.reason);
  const fieldCols = fields.map((f) => ({ f, col: colOf(matchColumn(f)) }));
  const sectionCols = sections.map((s) => ({ s, col: colOf(matchColumn(s)) }));
  const atCol = colOf(lookupColumns.enrichedAt);
  const ourCols = [statusCol, queryCol, reasonCol, ...fieldCols.map((c) => c.col), ...sectionCols.map((c) => c.col), atCol];
  // The old version's columns (read; see LEGACY): its status, time and query, and the matched company's code or VAT number.
  const find = (...names: string[]) => norm.findIndex((h, j) => j !== keyCol && j < width && names.includes(h));
  const legacy =
    find(LEGACY.status) >= 0 && find(LEGACY.at) >= 0
      ? {
          statusCol: find(LEGACY.status),
          atCol: find(LEGACY.at),
          queryCol: find(LEGACY.query),
          codeCol: find('registry_code', 'matched_registry_code'),
          vatCol: find('vat_number', 'matched_vat_number'),
        }
      : undefined;
  const legacyCols = legacy ? [legacy.statusCol, legacy.atCol, legacy.queryCol, legacy.codeCol, legacy.vatCol].filter((c) => c >= 0) : [];
  // Headers the version before issue 22 would have written into: a person's columns now, left alone.
  const outputNames = new Set([...Object.keys(summaryFields), ...sections].flatMap((f) => [f, `matched_${f}`]));
  const personColumns = header.slice(0, width).filter((h, j) => j !== keyCol && outputNames.has(norm[j]!));
  return {
    header,
    width,
    keyCol,
    headerWrites,
    fieldCols,
    sectionCols,
    statusCol,
    reasonCol,
    atCol,
    queryCol,
    ourCols,
    legacy: legacy && { ...legacy, cols: legacyCols },
    personColumns,
  };
}
export type Layout = ReturnType<typeof layOut>;

/** Whether the row's output cells are the tool's own (it wrote them: they carry its time): refreshed without --force. */
export function ownsOutput(row: readonly string[], L: Layout): boolean {
  return (row[L.atCol] ?? '') !== '';
}

/**
 * What an earlier lookup left in the row: from the company_data_ columns, else from the old version's
 * (see LEGACY). An old row without enrich_query stands for the query the matched company's own registry
 * code or VAT number shows when the key is of that kind (an edited code then reads as changed), else
 * the key itself (a name cannot be checked that way).
 */
export function priorOf(row: readonly string[], L: Layout): (PriorLookup & { legacy?: true }) | undefined {
  const at = row[L.atCol] ?? '';
  if (at !== '') return { status: row[L.statusCol], query: row[L.queryCol], at };
  const old = L.legacy;
  const oldAt = old ? (row[old.atCol] ?? '') : '';
  if (!old || oldAt === '') return undefined;
  const status = row[old.statusCol] ?? '';
  let query = old.queryCol >= 0 ? (row[old.queryCol] ?? '') : '';
  if (query === '') {
    const key = row[L.keyCol] ?? '';
    const k = readQuery(key);
    const word = statusWord(status);
    const evidence =
      k.status !== 'send' || (word !== 'matched' && word !== 'vat_group')
        ? -1
        : k.type === 'registry_code'
          ? old.codeCol
          : k.type === 'vat_number'
            ? old.vatCol
            : -1;
    const cell = evidence >= 0 ? (row[evidence] ?? '') : '';
    query = cell !== '' ? cell : key;
  }
  return { status, query, at: oldAt, legacy: true };
}
