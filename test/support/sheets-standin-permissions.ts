/**
 * Who may do what in the Sheets stand-in, decided as Google decides it:
 * - a role per spreadsheet and user (owner, writer, reader; users are service-account emails or
 *   'oauth-user' for the stand-in's access token). A spreadsheet nobody shared lets every user write (the
 *   stand-in's default, so tests that do not care need no setup); once shared, others get 403.
 * - protected ranges (sheets.protectedRanges of spreadsheets.get): requestingUserCanEdit computed for the
 *   caller, editors shown only to those who can edit, and a write or structural change that touches a
 *   protected cell refused whole for anyone else (batches are atomic);
 * - Google's 10,000,000-cell limit, counted over all sheets of the spreadsheet, on every grid growth;
 * - revoked credentials (401 on every call from then on);
 * - the `fields` mask of spreadsheets.get.
 * A test may change any of it at any time, also while a run is going on.
 */

export type Role = 'owner' | 'writer' | 'reader';

/** Zero-based, end exclusive; a missing bound is unbounded (Google's GridRange). */
export interface GridRange {
  sheetId?: number;
  startRowIndex?: number;
  endRowIndex?: number;
  startColumnIndex?: number;
  endColumnIndex?: number;
}

export interface ProtectionSpec {
  /** The protected cells; with only sheetId, the whole sheet. */
  range?: GridRange;
  /** Backed by a named range of this name (made here) instead of a bare range. */
  namedRange?: string;
  description?: string;
  /** Warns in the UI only: everyone who can edit the spreadsheet can edit it. */
  warningOnly?: boolean;
  /** Users who may edit it besides the owner. */
  editors?: string[];
  /** Holes in a protected sheet. */
  unprotectedRanges?: GridRange[];
}

interface Protection extends ProtectionSpec {
  protectedRangeId: number;
  namedRangeId?: string;
}

/** A refusal answered with Google's error body. */
export class StandinRefusal extends Error {
  constructor(
    public status: number,
    public googleStatus: string,
    message: string,
  ) {
    super(message);
  }
}

export const CELL_LIMIT = 10_000_000;
export const MESSAGES = {
  denied: 'The caller does not have permission',
  protected:
    'You are trying to edit a protected cell or object. Please contact the spreadsheet owner to remove protection if you need to edit.',
  cellLimit: `This action would increase the number of cells in the workbook above the limit of ${CELL_LIMIT} cells.`,
  unauthenticated:
    'Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.',
};

/** What the checks need to know of a spreadsheet. */
export interface Book {
  id: string;
  sheets: { sheetId: number; rowCount: number; columnCount: number }[];
}

/** Cells a request touches: rows and columns zero-based, ends exclusive. */
export interface CellRect {
  sheetId: number;
  r0: number;
  r1: number;
  c0: number;
  c1: number;
}

const inside = (g: GridRange, sheetId: number, row: number, col: number) =>
  (g.sheetId ?? 0) === sheetId &&
  row >= (g.startRowIndex ?? 0) &&
  row < (g.endRowIndex ?? Infinity) &&
  col >= (g.startColumnIndex ?? 0) &&
  col < (g.endColumnIndex ?? Infinity);

export class StandinPermissions {
  private readonly roles = new Map<string, Map<string, Role>>();
  private readonly protections = new Map<string, Protection[]>();
  private readonly named = new Map<string, { namedRangeId: string; name: string; range: GridRange }[]>();
  private readonly revoked = new Set<string>();
  private next = 1;
  /** Called after each write the stand-in applied: a test changes permissions mid-run from here. */
  onWrite?: (spreadsheetId: string, method: string) => void;

  /** Gives (or with no role, takes away) a user's access to a spreadsheet. */
  setRole(id: string, user: string, role?: Role): void {
    let m = this.roles.get(id);
    if (!m) this.roles.set(id, (m = new Map()));
    if (role) m.set(user, role);
    else m.delete(user);
  }

  /** Shares a spreadsheet with these users only, as writers. */
  share(id: string, writers: string[]): void {
    this.roles.set(id, new Map(writers.map((u) => [u, 'writer'])));
  }

  protect(id: string, spec: ProtectionSpec): number {
    const p: Protection = { ...spec, protectedRangeId: this.next++ };
    if (spec.namedRange) {
      const list = this.named.get(id) ?? [];
      this.named.set(id, list);
      p.namedRangeId = `nr${p.protectedRangeId}`;
      list.push({ namedRangeId: p.namedRangeId, name: spec.namedRange, range: spec.range ?? {} });
    }
    this.protections.set(id, [...(this.protections.get(id) ?? []), p]);
    return p.protectedRangeId;
  }

  unprotect(id: string, protectedRangeId: number): void {
    this.protections.set(
      id,
      (this.protections.get(id) ?? []).filter((p) => p.protectedRangeId !== protectedRangeId),
    );
  }

  /** Every later request with these credentials answers 401, as for a revoked token or a deleted key. */
  revoke(user: string): void {
    this.revoked.add(user);
  }

  restore(user: string): void {
    this.revoked.delete(user);
  }

  authenticate(user: string): void {
    if (this.revoked.has(user)) throw new StandinRefusal(401, 'UNAUTHENTICATED', MESSAGES.unauthenticated);
  }

  roleOf(id: string, user: string): Role | undefined {
    const m = this.roles.get(id);
    return m ? m.get(user) : 'writer';
  }

  /** No role: 403 on everything; a reader: 403 on every write. */
  checkAccess(id: string, user: string, kind: 'read' | 'write'): void {
    const role = this.roleOf(id, user);
    if (!role || (kind === 'write' && role === 'reader')) throw new StandinRefusal(403, 'PERMISSION_DENIED', MESSAGES.denied);
  }

  private canEdit(id: string, user: string, p: Protection): boolean {
    const role = this.roleOf(id, user);
    if (role === 'owner') return true;
    if (role !== 'writer') return false;
    return !!p.warningOnly || !!p.editors?.includes(user);
  }

  /** sheets[].protectedRanges of spreadsheets.get, as this user sees them. */
  protectedRangesOf(id: string, sheetId: number, user: string): unknown[] {
    return (this.protections.get(id) ?? [])
      .filter((p) => (p.range?.sheetId ?? 0) === sheetId)
      .map((p) => {
        const canEdit = this.canEdit(id, user, p);
        return {
          protectedRangeId: p.protectedRangeId,
          range: { sheetId, ...p.range },
          ...(p.namedRangeId ? { namedRangeId: p.namedRangeId } : {}),
          ...(p.description ? { description: p.description } : {}),
          ...(p.warningOnly ? { warningOnly: true } : {}),
          requestingUserCanEdit: canEdit,
          ...(p.unprotectedRanges?.length ? { unprotectedRanges: p.unprotectedRanges.map((u) => ({ sheetId, ...u })) } : {}),
          ...(canEdit && !p.warningOnly ? { editors: { users: p.editors ?? [] } } : {}),
        };
      });
  }

  namedRangesOf(id: string): unknown[] {
    return this.named.get(id) ?? [];
  }

  /** Refuses a write that touches a protected cell this user may not edit (checked before anything is applied). */
  checkCells(id: string, user: string, rects: readonly CellRect[]): void {
    for (const p of this.protections.get(id) ?? []) {
      if (this.canEdit(id, user, p)) continue;
      const g = p.range ?? {};
      for (const r of rects) {
        const rows = [Math.max(r.r0, g.startRowIndex ?? 0), Math.min(r.r1, g.endRowIndex ?? Infinity)] as const;
        const cols = [Math.max(r.c0, g.startColumnIndex ?? 0), Math.min(r.c1, g.endColumnIndex ?? Infinity)] as const;
        if ((g.sheetId ?? 0) !== r.sheetId || rows[0] >= rows[1] || cols[0] >= cols[1]) continue;
        // A cell of the overlap outside every hole is protected (overlaps are small in tests: cell by cell).
        for (let row = rows[0]; row < rows[1]; row++)
          for (let col = cols[0]; col < cols[1]; col++)
            if (!(p.unprotectedRanges ?? []).some((u) => inside({ sheetId: r.sheetId, ...u }, r.sheetId, row, col)))
              throw new StandinRefusal(403, 'PERMISSION_DENIED', MESSAGES.protected);
      }
    }
  }

  /**
   * A structural change (rows or columns added or inserted) on a sheet: refused for a non-editor when the
   * whole sheet is protected, or when rows/columns are inserted inside a protected range.
   */
  checkStructure(id: string, user: string, sheetId: number, dimension: 'ROWS' | 'COLUMNS', insertAt?: number): void {
    for (const p of this.protections.get(id) ?? []) {
      const g = p.range ?? {};
      if ((g.sheetId ?? 0) !== sheetId || this.canEdit(id, user, p)) continue;
      const [start, end] = dimension === 'ROWS' ? [g.startRowIndex, g.endRowIndex] : [g.startColumnIndex, g.endColumnIndex];
      const wholeSheet = [g.startRowIndex, g.endRowIndex, g.startColumnIndex, g.endColumnIndex].every((v) => v === undefined);
      const within = insertAt !== undefined && insertAt > (start ?? 0) && insertAt < (end ?? Infinity);
      if (wholeSheet || within) throw new StandinRefusal(403, 'PERMISSION_DENIED', MESSAGES.protected);
    }
  }

  /** A spreadsheets.batchUpdate, checked whole before any of it is applied (Google's batches are atomic). */
  checkBatch(book: Book, user: string, requests: readonly Record<string, Record<string, unknown>>[]): void {
    for (const r of requests) {
      const a = (r.appendDimension ?? r.insertDimension) as
        | {
            sheetId?: number;
            dimension?: string;
            length?: number;
            range?: { sheetId?: number; dimension: string; startIndex: number; endIndex: number };
          }
        | undefined;
      if (!a) continue;
      const sheetId = a.range?.sheetId ?? a.sheetId ?? 0;
      const dimension = (a.range?.dimension ?? a.dimension) as 'ROWS' | 'COLUMNS';
      if (!book.sheets.some((x) => x.sheetId === sheetId)) continue;
      this.checkStructure(book.id, user, sheetId, dimension, a.range?.startIndex);
    }
  }
}

/** A `fields` mask: name → sub-mask, or null for the whole value. */
type Mask = Map<string, Mask | null>;

function parseMask(s: string): Mask {
  let i = 0;
  const merge = (m: Mask, name: string, sub: Mask | null) => {
    if (!m.has(name)) return void m.set(name, sub);
    const old = m.get(name)!;
    if (old === null || sub === null) return void m.set(name, null);
    for (const [k, v] of sub) merge(old, k, v);
  };
  const field = (m: Mask) => {
    let name = '';
    while (i < s.length && !',()/.'.includes(s[i]!)) name += s[i++];
    name = name.trim();
    let sub: Mask | null = null;
    // Google takes both a/b and a.b for a path.
    if (s[i] === '/' || s[i] === '.') {
      i++;
      sub = new Map();
      field(sub);
    } else if (s[i] === '(') {
      i++;
      sub = list();
      i++;
    }
    if (name) merge(m, name, sub);
  };
  const list = (): Mask => {
    const m: Mask = new Map();
    for (;;) {
      field(m);
      if (s[i] !== ',') return m;
      i++;
    }
  };
  return list();
}

function applyMask(value: unknown, mask: Mask | null): unknown {
  if (mask === null || mask.has('*') || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => applyMask(v, mask));
  const out: Record<string, unknown> = {};
  for (const [k, sub] of mask) if (k in value) out[k] = applyMask((value as Record<string, unknown>)[k], sub);
  return out;
}

/** The answer as Google gives it for `fields=...`: only the fields named (nested with a/b or a(b,c)). */
export function applyFields(value: unknown, fields: string | null): unknown {
  return fields ? applyMask(value, parseMask(fields)) : value;
}
