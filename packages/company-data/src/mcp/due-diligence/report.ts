/**
 * The answer of a due-diligence check, compact enough for a model: the company, the verdict and the red
 * flags worst first, the facts of each section in a few fields, what could not be checked and why, and
 * what the check cost. The same answer as structured content and as readable text.
 */
import { objectOrEmpty, objectsOf } from '@company-data/core/json';
import { flatCompanyFields, simplified } from '@company-data/core/simplify';
import { operationGroups as ops } from '@company-data/core/operations';
import { eur, latestFigures, redFlags, riskLevel, type RedFlag } from './red-flags';
import { sectionSpecs, type Row, type SectionFailure, type SectionKey, type Sections } from './sections';

const rec = objectOrEmpty;
const list = objectsOf;
const isEmpty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
/** Leaves out empty fields: they say nothing and cost tokens. */
const pick = (row: Row, keys: readonly string[]): Row => Object.fromEntries(keys.filter((k) => !isEmpty(row[k])).map((k) => [k, row[k]]));

export interface Cost {
  billed_queries: number;
  requests: number;
  text: string;
}

export interface DueDiligenceReport extends Record<string, unknown> {
  registry_code: string;
  company?: Row;
  risk_level: 'high' | 'medium' | 'low';
  /** False when a section could not be read: the verdict then rests on the others. */
  complete: boolean;
  red_flags: RedFlag[];
  facts: Partial<Record<string, unknown>>;
  not_checked: SectionFailure[];
  cost: Cost;
  /** The date "recent" and "overdue" are judged against. */
  as_of: string;
  notes?: string[];
}

function party(r: Row): Row {
  const p = rec(r.party);
  return {
    ...pick({ name: p.name, role: rec(r.role).label ?? rec(r.role).code, from: r.from }, ['name', 'role', 'from']),
    ...pick({ person_id: p.person_id, registry_code: p.registry_code }, ['person_id', 'registry_code']),
  };
}

function listFact(s: Sections, key: SectionKey, shape: (r: Row) => Row): Row | undefined {
  const r = s[key];
  if (!r.ok) return undefined;
  return { total: r.total ?? r.rows.length, ...(r.rows.length ? { items: r.rows.map(shape) } : {}) };
}

const amounts = (r: Row): Row =>
  pick({ date: r.date, total: rec(r.amounts).total, creditor: rec(r.creditor).name, bailiff: r.bailiff, court: r.court_department }, [
    'date',
    'total',
    'creditor',
    'bailiff',
    'court',
  ]);

const FIGURES = [
  'year',
  'revenue',
  'net_profit',
  'equity',
  'total_assets',
  'total_liabilities',
  'net_margin',
  'current_ratio',
  'debt_ratio',
];

function facts(s: Sections): Row {
  const out: Row = {};
  const one = (key: SectionKey) => (s[key].ok ? (s[key].rows[0] ?? {}) : undefined);
  const credit = one('credit_score');
  if (credit) out.credit_score = credit;
  const debt = one('tax_debt');
  if (debt) {
    const history = list(debt.history);
    out.tax_debt = {
      ...pick(debt, ['total', 'snapshot_date']),
      ...(list(debt.claims).length
        ? { claims: list(debt.claims).map((c) => pick(c, ['label', 'debt', 'in_payment_schedule', 'contested'])) }
        : {}),
      // The oldest day of the three months' history: is the debt growing?
      ...(history[0] ? { earliest_in_history: pick(history[0], ['date', 'debt']) } : {}),
    };
  }
  const declarations = one('tax_declarations');
  if (declarations)
    out.tax_declarations = {
      missing: list(declarations.missing).map((m) => pick(m, ['label', 'due_on'])),
      late: list(declarations.late).length,
    };
  out.representatives = listFact(s, 'representatives', party);
  out.beneficial_owners = listFact(s, 'beneficial_owners', party);
  out.court_cases = listFact(s, 'court_cases', (r) => pick(r, ['date', 'case_number', 'proceeding_type', 'decision_type', 'category']));
  out.enforcements = listFact(s, 'enforcements', amounts);
  out.payment_orders = listFact(s, 'payment_orders', amounts);
  if (s.annual_reports.ok) {
    const reports = s.annual_reports.rows;
    const filed = reports.filter((r) => r.status === 'valid').sort((a, b) => Number(b.year) - Number(a.year))[0];
    out.annual_reports = {
      ...(filed ? { latest_filed: pick(filed, ['year', 'period_end', 'submitted_on', 'employees']) } : {}),
      overdue: reports.filter((r) => r.status === 'overdue').map((r) => pick(r, ['year', 'due_on'])),
      not_yet_due: reports.filter((r) => r.status === 'not_yet_due').map((r) => pick(r, ['year', 'due_on'])),
    };
  }
  if (s.financials.ok) {
    const latest = latestFigures(s);
    const before = latest && s.financials.rows.find((y) => Number(y.year) === Number(latest.year) - 1);
    out.latest_figures = latest
      ? { ...pick(latest, FIGURES), ...(before ? { year_before: pick(before, ['year', 'revenue', 'net_profit', 'equity']) } : {}) }
      : 'no figures filed';
  }
  return Object.fromEntries(Object.entries(out).filter(([, v]) => v !== undefined));
}

export function buildReport(input: {
  registryCode: string;
  sections: Sections;
  today: string;
  requests: number;
  notes?: string[];
}): DueDiligenceReport {
  const { sections: s } = input;
  const flags = redFlags(s, input.today);
  const failed = sectionSpecs.flatMap((spec) => {
    const r = s[spec.key];
    return r.ok ? [] : [r.error];
  });
  const profile = s.profile.ok ? s.profile.rows[0] : undefined;
  const company = profile
    ? pick(simplified(ops.companies.get, profile)[0] ?? {}, [
        ...flatCompanyFields,
        'main_activity',
        'share_capital',
        'email',
        'website',
        'consumer_blacklist_since',
      ])
    : undefined;
  return {
    registry_code: input.registryCode,
    ...(company ? { company } : {}),
    risk_level: riskLevel(flags),
    complete: failed.length === 0,
    red_flags: flags,
    facts: facts(s),
    not_checked: failed,
    cost: {
      billed_queries: 0,
      requests: input.requests,
      text:
        `Billed: nothing. ${input.requests} read ${input.requests === 1 ? 'request' : 'requests'} (GET), not billed per query: ` +
        'the service bills the bulk lookup (companies_lookup) per query, and this check does not use it. ' +
        "The reads count toward the account's request usage and its rate limit (10 a second). By the service's description none needs the API plan; a section the account's plan does not cover is listed under not_checked.",
    },
    as_of: input.today,
    ...(input.notes?.length ? { notes: input.notes } : {}),
  };
}

const titleOf = (key: SectionKey) => sectionSpecs.find((s) => s.key === key)!.title;

function peopleLine(label: string, f: unknown): string | undefined {
  const v = rec(f);
  if (v.total === undefined) return undefined;
  const items = list(v.items).map(
    (p) => `${String(p.name)}${p.role ? ` (${String(p.role)}${p.from ? ` since ${String(p.from)}` : ''})` : ''}`,
  );
  const more = Number(v.total) > items.length ? `, and ${Number(v.total) - items.length} more` : '';
  return `${label}: ${items.length ? items.join('; ') + more : 'none'}`;
}

/** The report as text a person or a model reads top-down: verdict, flags, facts, gaps, cost. */
export function reportText(r: DueDiligenceReport): string {
  const c = r.company ?? {};
  const lines: string[] = [];
  lines.push(
    c.name
      ? `Due diligence: ${String(c.name)} (${r.registry_code}), ${String(c.legal_form ?? '')}, ${String(c.status_label ?? c.status ?? '')}, registered ${String(c.registered_on ?? '?')}${c.vat_number ? `, VAT ${String(c.vat_number)}` : ''}.`
      : `Due diligence: registry code ${r.registry_code} (the registry profile could not be read).`,
  );
  for (const n of r.notes ?? []) lines.push(n);
  lines.push(
    `Risk: ${r.risk_level.toUpperCase()}${r.complete ? '' : ' (incomplete: see "Not checked")'}; ${r.red_flags.length ? `${r.red_flags.length} red flag${r.red_flags.length === 1 ? '' : 's'}, worst first:` : 'no red flags found.'}`,
  );
  r.red_flags.forEach((f, i) => lines.push(`${i + 1}. [${f.severity}] ${f.text} (source: ${f.source}${f.date ? `, ${f.date}` : ''})`));
  const f = r.facts;
  lines.push('Facts:');
  const credit = rec(f.credit_score);
  if (f.credit_score)
    lines.push(
      credit.rated === true
        ? `- Credit score: ${String(credit.rating ?? '?')} (${String(credit.score ?? '?')}/100), probability of default ${String(credit.probability_of_default ?? '?')}${credit.rule ? `, rule ${String(credit.rule)}` : ''}, scored ${String(credit.date ?? '?')}`
        : `- Credit score: not rated (${String(credit.reason ?? 'no reason given')})`,
    );
  const debt = rec(f.tax_debt);
  if (f.tax_debt)
    lines.push(`- Tax debt: ${Number(debt.total) > 0 ? `${eur(Number(debt.total))} on ${String(debt.snapshot_date ?? '?')}` : 'none'}`);
  const decl = rec(f.tax_declarations);
  if (f.tax_declarations) lines.push(`- Tax declarations: ${list(decl.missing).length} missing, ${String(decl.late)} filed late`);
  for (const [key, label] of [
    ['representatives', 'Representatives'],
    ['beneficial_owners', 'Beneficial owners'],
  ] as const) {
    const line = peopleLine(label, f[key]);
    if (line) lines.push(`- ${line}`);
  }
  for (const key of ['court_cases', 'enforcements', 'payment_orders'] as const) {
    const v = rec(f[key]);
    if (v.total === undefined) continue;
    const newest = list(v.items)[0];
    lines.push(
      `- ${titleOf(key)[0]!.toUpperCase()}${titleOf(key).slice(1)}: ${String(v.total)}${newest?.date ? `, newest ${String(newest.date)}` : ''}`,
    );
  }
  const reports = rec(f.annual_reports);
  if (f.annual_reports) {
    const filed = rec(reports.latest_filed);
    lines.push(
      `- Annual reports: ${filed.year ? `latest filed ${String(filed.year)} (${String(filed.submitted_on ?? '?')})` : 'none filed'}` +
        `${
          list(reports.overdue).length
            ? `; overdue ${list(reports.overdue)
                .map((o) => String(o.year))
                .join(', ')}`
            : ''
        }`,
    );
  }
  if (f.latest_figures) {
    const y = rec(f.latest_figures);
    const money = (k: string) => (typeof y[k] === 'number' ? `${k.replace('_', ' ')} ${eur(y[k])}` : '');
    lines.push(
      typeof f.latest_figures === 'string'
        ? `- Figures: ${f.latest_figures}`
        : `- Figures ${String(y.year)}: ${['revenue', 'net_profit', 'equity', 'total_assets'].map(money).filter(Boolean).join(', ')}`,
    );
  }
  if (r.not_checked.length) {
    lines.push('Not checked (the rest of the answer stands):');
    for (const n of r.not_checked)
      lines.push(`- ${titleOf(n.section)}: ${n.message} (${n.code}${n.status ? `, HTTP ${n.status}` : ''}); retry with ${n.source}`);
  }
  lines.push(`Cost: ${r.cost.text}`);
  lines.push(`Judged as of ${r.as_of}. The structured content has every field; call the source tools for the full lists.`);
  return lines.join('\n');
}
