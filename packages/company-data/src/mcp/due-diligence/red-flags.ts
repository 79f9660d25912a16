/**
 * Red-flag rules of the due-diligence check, from the fields the spec defines (docs/decisions/mcp.md,
 * "Due diligence in one call"): each rule reads the sections it needs and gives flags naming the tool that
 * reads the source alone and the date the fact carries. A failed section gives no flags (the answer
 * names it as not checked instead); nothing is inferred from a missing answer.
 */
import { objectOrEmpty, objectsOf } from '@company-data/core/json';
import { sourceOf, type Row, type SectionKey, type Sections } from './sections';

export const severities = ['critical', 'high', 'medium', 'low'] as const;
export type Severity = (typeof severities)[number];

export interface RedFlag {
  severity: Severity;
  /** Stable key of the rule, e.g. tax_debt, status_bankrupt. */
  code: string;
  text: string;
  /** The tool that reads the source alone (one per operation of the service). */
  source: string;
  /** The date the fact carries (snapshot, decision, due date, scoring date); YYYY-MM-DD or a year. */
  date?: string;
}

/** Windows for "recent" records, in months before today. */
export const RECENT_ENFORCEMENT_MONTHS = 24;
export const RECENT_PAYMENT_ORDER_MONTHS = 24;
export const RECENT_COURT_CASE_MONTHS = 36;
/** A company registered less than this many months ago has little history to judge. */
export const YOUNG_COMPANY_MONTHS = 12;

const rec = objectOrEmpty;
const list = objectsOf;
const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

export const eur = (n: number) =>
  `${n.toLocaleString('en-US', { minimumFractionDigits: Number.isInteger(n) ? 0 : 2, maximumFractionDigits: 2 })} EUR`;
const percent = (p: number) => `${(p * 100).toLocaleString('en-US', { maximumFractionDigits: p < 0.01 ? 2 : 1 })}%`;
const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** Whole months from an ISO date to today (negative when in the future). */
export function monthsSince(date: string, today: string): number {
  const [y1, m1, d1] = date.split('-').map(Number) as [number, number, number];
  const [y2, m2, d2] = today.split('-').map(Number) as [number, number, number];
  return (y2 - y1) * 12 + (m2 - m1) - (d2 < (d1 ?? 1) ? 1 : 0);
}

/** The rows of a section that answered; undefined when it failed. */
function rowsOf(s: Sections, key: SectionKey): Row[] | undefined {
  const r = s[key];
  return r.ok ? r.rows : undefined;
}
function first(s: Sections, key: SectionKey): Row | undefined {
  const rows = rowsOf(s, key);
  return rows ? (rows[0] ?? {}) : undefined;
}
const totalOf = (s: Sections, key: SectionKey): number | undefined => {
  const r = s[key];
  return r.ok ? (r.total ?? r.rows.length) : undefined;
};
/** Newest date of a list section's rows (the service sends them newest first; sorted anyway). */
const newest = (rows: Row[]): Row | undefined =>
  [...rows].filter((r) => str(r.date)).sort((a, b) => String(b.date).localeCompare(String(a.date)))[0];

type Rule = (s: Sections, today: string) => RedFlag[];

const statusRule: Rule = (s) => {
  const p = first(s, 'profile');
  if (!p) return [];
  const code = str(rec(p.status).code);
  const changed = str(p.updated_at)?.slice(0, 10);
  const source = sourceOf('profile');
  if (code === 'N') return [{ severity: 'critical', code: 'status_bankrupt', text: 'Bankrupt (registry status N)', source, date: changed }];
  if (code === 'L')
    return [{ severity: 'critical', code: 'status_liquidation', text: 'In liquidation (registry status L)', source, date: changed }];
  if (code === 'D') {
    const on = str(p.deleted_on);
    return [
      {
        severity: 'critical',
        code: 'status_deleted',
        text: `Deleted from the registry${on ? ` on ${on}` : ''} (registry status D)`,
        source,
        date: on ?? changed,
      },
    ];
  }
  return [];
};

const blacklistRule: Rule = (s) => {
  const since = str(first(s, 'profile')?.consumer_blacklist_since);
  return since
    ? [
        {
          severity: 'high',
          code: 'consumer_blacklist',
          text: `On the consumer protection authority's blacklist since ${since}`,
          source: sourceOf('profile'),
          date: since,
        },
      ]
    : [];
};

const youngRule: Rule = (s, today) => {
  const p = first(s, 'profile');
  const on = str(p?.registered_on);
  if (!on || monthsSince(on, today) >= YOUNG_COMPANY_MONTHS) return [];
  return [
    {
      severity: 'low',
      code: 'young_company',
      text: `Registered less than a year ago (${on}): little history to judge`,
      source: sourceOf('profile'),
      date: on,
    },
  ];
};

const taxDebtRule: Rule = (s) => {
  const t = first(s, 'tax_debt');
  const total = num(t?.total);
  if (!t || !total || total <= 0) return [];
  const claims = list(t.claims);
  const scheduled = claims.reduce((sum, c) => sum + (num(c.in_payment_schedule) ?? 0), 0);
  const contested = claims.reduce((sum, c) => sum + (num(c.contested) ?? 0), 0);
  const snapshot = str(t.snapshot_date);
  const parts = [scheduled > 0 ? `${eur(scheduled)} in a payment schedule` : '', contested > 0 ? `${eur(contested)} contested` : ''].filter(
    Boolean,
  );
  // Debt wholly in a payment schedule or contested is agreed or disputed, not ignored: one step lower.
  const settled = scheduled + contested >= total;
  return [
    {
      severity: settled ? 'medium' : 'high',
      code: 'tax_debt',
      text: `Tax debt ${eur(total)}${snapshot ? ` on the tax authority's list of ${snapshot}` : ''}${parts.length ? ` (${parts.join(', ')})` : ''}`,
      source: sourceOf('tax_debt'),
      date: snapshot,
    },
  ];
};

const ruleTexts: Record<string, { severity: Severity; text: string }> = {
  in_default: { severity: 'critical', text: 'the company is in default' },
  capital_breach: { severity: 'high', text: 'equity below the legal minimum' },
  inactive: { severity: 'medium', text: 'no turnover or staff (inactive)' },
  thin_file: { severity: 'low', text: 'too little history (thin file)' },
};
const ratingSeverity: Record<string, Severity> = { D: 'high', C: 'high', B: 'medium', BB: 'low' };
const worse = (a: Severity | undefined, b: Severity | undefined): Severity | undefined =>
  a === undefined ? b : b === undefined ? a : severities[Math.min(severities.indexOf(a), severities.indexOf(b))];

const creditRule: Rule = (s) => {
  const c = first(s, 'credit_score');
  if (!c) return [];
  const source = sourceOf('credit_score');
  const date = str(c.date);
  if (c.rated !== true) {
    const reason = str(c.reason);
    // bankrupt, liquidation and deleted repeat the status flag; said here only when the profile did not answer.
    if (reason === 'not_covered')
      return [{ severity: 'low', code: 'credit_not_scored', text: 'Not credit scored (not covered: too new or no reports)', source, date }];
    if (reason && !first(s, 'profile'))
      return [{ severity: 'critical', code: 'credit_not_scored', text: `Not credit scored: ${reason}`, source, date }];
    return [];
  }
  const rating = str(c.rating);
  const score = num(c.score);
  const pd = num(c.probability_of_default);
  const rule = str(c.rule);
  const byRule = rule ? (ruleTexts[rule] ?? { severity: 'medium' as const, text: rule }) : undefined;
  const byPd = pd === undefined ? undefined : pd >= 0.2 ? 'high' : pd >= 0.05 ? 'medium' : undefined;
  const severity = worse(worse(byRule?.severity, rating ? ratingSeverity[rating] : undefined), byPd);
  if (!severity) return [];
  const facts = [
    rating ? `rating ${rating}${score !== undefined ? ` (score ${score}/100)` : ''}` : '',
    pd !== undefined ? `probability of default ${percent(pd)} in 12 months` : '',
    byRule ? `limited by rule ${rule}: ${byRule.text}` : '',
  ].filter(Boolean);
  return [{ severity, code: 'credit_score', text: `Credit score: ${facts.join(', ')}`, source, date }];
};

/** A list of records against the company: recent ones weigh more. */
function recordRule(
  key: 'enforcements' | 'payment_orders' | 'court_cases',
  noun: [string, string],
  recentMonths: number,
  [recent, older]: [Severity, Severity],
  detail: (r: Row) => string,
): Rule {
  return (s, today) => {
    const rows = rowsOf(s, key);
    const total = totalOf(s, key);
    if (!rows || !total) return [];
    const top = newest(rows);
    const date = str(top?.date);
    const isRecent = !!date && monthsSince(date, today) < recentMonths;
    const d = top ? detail(top) : '';
    return [
      {
        severity: isRecent ? recent : older,
        code: key,
        text: `${plural(total, ...noun)}, newest ${date ?? 'undated'}${d ? ` (${d})` : ''}${isRecent ? '' : `, none in the last ${recentMonths} months`}`,
        source: sourceOf(key),
        date,
      },
    ];
  };
}

const amountAndCreditor = (r: Row) => {
  const total = num(rec(r.amounts).total);
  const creditor = str(rec(r.creditor).name);
  return [total !== undefined ? eur(total) : '', creditor ? `creditor ${creditor}` : ''].filter(Boolean).join(', ');
};

const enforcementRule = recordRule(
  'enforcements',
  ['enforcement proceeding', 'enforcement proceedings'],
  RECENT_ENFORCEMENT_MONTHS,
  ['high', 'medium'],
  amountAndCreditor,
);
const paymentOrderRule = recordRule(
  'payment_orders',
  ['payment order', 'payment orders'],
  RECENT_PAYMENT_ORDER_MONTHS,
  ['medium', 'low'],
  amountAndCreditor,
);
const courtRule = recordRule('court_cases', ['court case', 'court cases'], RECENT_COURT_CASE_MONTHS, ['medium', 'low'], (r) =>
  [str(r.proceeding_type), str(r.category), str(r.case_number)].filter(Boolean).join(', '),
);

const overdueReportsRule: Rule = (s) => {
  const overdue = (rowsOf(s, 'annual_reports') ?? []).filter((r) => r.status === 'overdue');
  if (!overdue.length) return [];
  const years = overdue.map((r) => String(r.year ?? '?')).sort();
  const due = overdue
    .map((r) => str(r.due_on))
    .filter((d): d is string => !!d)
    .sort();
  return [
    {
      severity: 'high',
      code: 'annual_report_overdue',
      text: `${overdue.length === 1 ? 'Annual report' : 'Annual reports'} for ${years.join(', ')} overdue${due[0] ? ` (due ${due[0]})` : ''}`,
      source: sourceOf('annual_reports'),
      date: due[due.length - 1],
    },
  ];
};

const declarationsRule: Rule = (s) => {
  const d = first(s, 'tax_declarations');
  if (!d) return [];
  const missing = list(d.missing);
  const late = list(d.late);
  const source = sourceOf('tax_declarations');
  const dates = (rows: Row[]) =>
    rows
      .map((r) => str(r.due_on))
      .filter((x): x is string => !!x)
      .sort();
  if (missing.length) {
    const shown = missing
      .slice(0, 3)
      .map((m) => `${str(m.label) ?? str(m.type) ?? 'declaration'} due ${str(m.due_on) ?? '?'}`)
      .join('; ');
    return [
      {
        severity: 'medium',
        code: 'tax_declarations_missing',
        text: `${plural(missing.length, 'tax declaration')} missing: ${shown}${missing.length > 3 ? '; …' : ''}`,
        source,
        date: dates(missing).at(-1),
      },
    ];
  }
  if (late.length)
    return [
      {
        severity: 'low',
        code: 'tax_declarations_late',
        text: `${plural(late.length, 'tax declaration')} filed late`,
        source,
        date: dates(late).at(-1),
      },
    ];
  return [];
};

/** The newest year of the figures that has any (the service lists all years; a missing report has none). */
export function latestFigures(s: Sections): Row | undefined {
  const years = rowsOf(s, 'financials') ?? [];
  return [...years]
    .filter((y) => num(y.year) !== undefined && ['revenue', 'net_profit', 'equity', 'total_assets'].some((k) => num(y[k]) !== undefined))
    .sort((a, b) => Number(b.year) - Number(a.year))[0];
}

const figuresRule: Rule = (s) => {
  const y = latestFigures(s);
  if (!y) return [];
  const year = String(y.year);
  const equity = num(y.equity);
  const profit = num(y.net_profit);
  const source = sourceOf('financials');
  const out: RedFlag[] = [];
  if (equity !== undefined && equity < 0)
    out.push({ severity: 'high', code: 'negative_equity', text: `Negative equity ${eur(equity)} in ${year}`, source, date: year });
  if (profit !== undefined && profit < 0)
    out.push({ severity: 'low', code: 'net_loss', text: `Net loss of ${eur(-profit)} in ${year}`, source, date: year });
  return out;
};

/** Registered companies, associations and foundations (codes 1, 8, 9) must have a board and declare owners. */
const peopleRule: Rule = (s) => {
  const p = first(s, 'profile');
  if (!p || rec(p.status).code !== 'R' || !/^[189]/.test(String(p.registry_code ?? ''))) return [];
  const out: RedFlag[] = [];
  if (totalOf(s, 'representatives') === 0)
    out.push({
      severity: 'medium',
      code: 'no_representatives',
      text: 'No current board member or other representative registered',
      source: sourceOf('representatives'),
    });
  if (totalOf(s, 'beneficial_owners') === 0)
    out.push({
      severity: 'medium',
      code: 'no_beneficial_owners',
      text: 'No beneficial owner declared',
      source: sourceOf('beneficial_owners'),
    });
  return out;
};

const rules: readonly Rule[] = [
  statusRule,
  creditRule,
  taxDebtRule,
  enforcementRule,
  overdueReportsRule,
  blacklistRule,
  figuresRule,
  declarationsRule,
  paymentOrderRule,
  courtRule,
  peopleRule,
  youngRule,
];

/** Every flag, worst first; within a severity the newest first (undated last). */
export function redFlags(s: Sections, today: string): RedFlag[] {
  return rules
    .flatMap((r) => r(s, today))
    .sort(
      (a, b) => severities.indexOf(a.severity) - severities.indexOf(b.severity) || String(b.date ?? '').localeCompare(String(a.date ?? '')),
    );
}

/** The overall verdict: the worst flag decides (critical and high: high risk). */
export function riskLevel(flags: readonly RedFlag[]): 'high' | 'medium' | 'low' {
  const worst = flags[0]?.severity;
  return worst === 'critical' || worst === 'high' ? 'high' : worst === 'medium' ? 'medium' : 'low';
}
