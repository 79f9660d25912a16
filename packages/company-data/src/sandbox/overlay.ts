import type { Lang } from '@company-data/core/schemas/common';
import type { GeneratedData } from './dataset/generate';
import { codeLabel, roles, taxClaimTypes, tr } from './dataset/labels';
import type { Company } from './dataset/model';
import { creditScoreView, taxDebtView } from './dataset/records';

/**
 * Changes announced by monitoring events to values the dataset generates on request (tax debt, credit
 * score, board). Registry fields (name, status, ...) are written into the Company rows instead; these
 * sections are pure functions of (seed, company), so the change is kept here and the section views
 * apply it, so that a GET after an event agrees with the event.
 */
export interface CompanyOverlay {
  /** New tax debt total (0 = cleared) and the tax list date the change came from. */
  tax?: { total: number; snapshot_date: string | null };
  rating?: { rating: string; score: number | null };
  /** Board members added by changes (name → role code and start date). */
  boardAdded?: Record<string, { role: string; from: string }>;
  /** Board members removed by changes (name → end date). */
  boardRemoved?: Record<string, string>;
  /** Registered through the control endpoint without an employee count. */
  employeesUnknown?: boolean;
}

export type Overlays = Map<string, CompanyOverlay>;

const BOARD_ROLES = new Set(['JUHL', 'JUHA', 'JUHE']);
const round2 = (n: number) => Math.round(n * 100) / 100;

/** Current board member names as generated (before changes). */
export function baseBoard(ds: Pick<GeneratedData, 'rels' | 'persons'>, c: Company): string[] {
  const out: string[] = [];
  for (const k of c.rels) {
    const r = ds.rels[k]!;
    if (r.until !== null || !BOARD_ROLES.has(roles[r.role]!.code)) continue;
    const name = r.kind === 1 ? null : ds.persons[r.p - 1]?.name;
    if (name) out.push(name);
  }
  return out;
}

/** Current board after changes. */
export function currentBoard(ds: Pick<GeneratedData, 'rels' | 'persons'>, c: Company, o: CompanyOverlay | undefined): string[] {
  const removed = o?.boardRemoved ?? {};
  const names = baseBoard(ds, c).filter((n) => !(n in removed));
  for (const n of Object.keys(o?.boardAdded ?? {})) if (!names.includes(n)) names.push(n);
  return names;
}

export function taxDebtWithOverlay(seed: number, c: Company, lang: Lang, o: CompanyOverlay | undefined) {
  const base = taxDebtView(seed, c, lang);
  if (!o?.tax || o.tax.total === base.total) return base;
  const total = round2(o.tax.total);
  const date = o.tax.snapshot_date;
  // History keeps the days before the change and ends with the day of the change.
  const history = (base.history as { date: string; debt: number; in_payment_schedule: number; contested: number }[]).filter(
    (h) => !date || h.date < date,
  );
  if (total === 0) {
    if (!date) return { snapshot_date: null, total: 0, claims: [], history: [] };
    history.push({ date, debt: 0, in_payment_schedule: 0, contested: 0 });
    return { snapshot_date: null, total: 0, claims: [], history };
  }
  let claims: { type: string; label: string; debt: number; in_payment_schedule: number; contested: number }[];
  if (base.claims.length && base.total > 0) {
    const f = total / base.total;
    claims = (base.claims as typeof claims).map((x) => ({
      ...x,
      debt: round2(x.debt * f),
      in_payment_schedule: round2(x.in_payment_schedule * f),
      contested: round2(x.contested * f),
    }));
    // Rounding must not change the total the event announced.
    const drift = round2(total - claims.reduce((a, x) => a + x.debt, 0));
    claims[0]!.debt = round2(claims[0]!.debt + drift);
  } else {
    const t = taxClaimTypes[0]!;
    claims = [{ type: t.code, label: tr(lang, t.et, t.en, t.ru), debt: total, in_payment_schedule: 0, contested: 0 }];
  }
  const sum = (k: 'in_payment_schedule' | 'contested') => round2(claims.reduce((a, x) => a + x[k], 0));
  if (date) history.push({ date, debt: total, in_payment_schedule: sum('in_payment_schedule'), contested: sum('contested') });
  return { snapshot_date: date, total, claims, history };
}

export function creditScoreWithOverlay(seed: number, c: Company, lang: Lang, o: CompanyOverlay | undefined) {
  const base = creditScoreView(seed, c, lang);
  if (!o?.rating || !base.rated) return base;
  const score = o.rating.score ?? base.score;
  const pd = score === null ? base.probability_of_default : Math.round((1 / (1 + Math.exp((score - 30) / 9))) * 10_000) / 10_000;
  return { ...base, rating: o.rating.rating, score, probability_of_default: pd };
}

/** Representative rows for board members added or removed by changes (rows of the generated data stay as they are otherwise). */
export function boardRows(o: CompanyOverlay | undefined, history: boolean, lang: Lang) {
  const rows: Record<string, unknown>[] = [];
  for (const [name, a] of Object.entries(o?.boardAdded ?? {})) {
    const until = o?.boardRemoved?.[name] ?? null;
    if (until && !history) continue;
    const role = roles.find((r) => r.code === a.role) ?? roles[0]!;
    rows.push({
      party: {
        type: 'person',
        name,
        registry_code: null,
        person_id: null,
        personal_code: null,
        birth_date: null,
        url: `https://sandbox.invalid/persons?q=${encodeURIComponent(name)}`,
      },
      role: codeLabel(role, lang),
      from: a.from,
      until,
    });
  }
  return rows;
}

/** Ends generated board rows removed by changes; returns the end date or undefined. */
export function removedOn(o: CompanyOverlay | undefined, name: string): string | undefined {
  return o?.boardRemoved?.[name];
}
