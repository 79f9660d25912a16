import type { Lang } from '@company-data/core/schemas/common';
import { emtakTitle } from './emtak';
import { legalForms, tr } from './labels';
import type { Company } from './model';
import { hash32, isoOf, mix, Rng, dayOf, TODAY } from './prng';

/* Financial sections, generated on demand from seed + registry code + section name (pure functions). */

export function sectionRng(seed: number, c: Company, section: string): Rng {
  return new Rng(mix(seed, hash32(`${c.code}:${section}`)));
}

export interface ReportRow {
  year: number;
  status: 'valid' | 'superseded' | 'overdue' | 'not_yet_due';
  start: number;
  end: number;
  submitted: number | null;
  due: number;
  employees: number | null;
  statements: boolean;
}

export type Figures = Record<string, number | null>;

const LAST_CLOSED_YEAR = 2025;

/** The financial year of the report_mix fixture ends on 30 June, so its latest report is not yet due. */
export function financialYear(c: Company): { start: string; end: string } | null {
  if (!legalForms[c.form]!.accounting) return null;
  return c.flags.has('report_mix') ? { start: '07-01', end: '06-30' } : { start: '01-01', end: '12-31' };
}

export function reports(seed: number, c: Company): ReportRow[] {
  const fy = financialYear(c);
  if (!fy) return [];
  const rng = sectionRng(seed, c, 'reports');
  const regYear = new Date(c.reg * 86_400_000).getUTCFullYear();
  const mix6 = c.flags.has('report_mix');
  const lastYear = c.del !== null ? new Date(c.del * 86_400_000).getUTCFullYear() - 1 : mix6 ? 2026 : LAST_CLOSED_YEAR;
  const first = Math.max(regYear + (c.reg > dayOf(`${regYear}-06-30`) ? 1 : 0), c.flags.has('rule:thin_file') ? 2025 : 2019);
  const out: ReportRow[] = [];
  for (let y = lastYear; y >= first; y--) {
    const start = mix6 ? dayOf(`${y - 1}-07-01`) : dayOf(`${y}-01-01`);
    const end = mix6 ? dayOf(`${y}-06-30`) : dayOf(`${y}-12-31`);
    const due = mix6 ? dayOf(`${y}-12-31`) : dayOf(`${y + 1}-06-30`);
    const emp = Math.max(0, c.employees + rng.int(-3, 2));
    const submitted = Math.min(TODAY - 1, due - rng.int(1, 120));
    if (due >= TODAY) {
      out.push({ year: y, status: 'not_yet_due', start, end, submitted: null, due, employees: null, statements: false });
    } else if (
      (mix6 && y === 2024) ||
      (!mix6 && y === lastYear && c.status !== 'R' && c.del === null) ||
      (!mix6 && y === lastYear && rng.chance(0.04))
    ) {
      out.push({ year: y, status: 'overdue', start, end, submitted: null, due, employees: null, statements: false });
    } else {
      const statements = !(mix6 && y === 2021) && !(c.employees < 2 && rng.chance(0.15));
      out.push({ year: y, status: 'valid', start, end, submitted, due, employees: emp, statements });
      if ((mix6 && y === 2022) || rng.chance(0.03)) {
        out.push({ year: y, status: 'superseded', start, end, submitted: submitted - rng.int(20, 60), due, employees: emp, statements });
      }
    }
  }
  return out;
}

/** Figures of one filed year; deterministic per company and year. */
export function figures(seed: number, c: Company, year: number, full: boolean): Figures {
  const rng = sectionRng(seed, c, `fig${year}`);
  const base = Math.max(c.employees, 0.3) * 55_000 * (0.6 + rng.next() * 0.8) * (1 + (year - 2022) * 0.04);
  const inactive = c.flags.has('rule:inactive');
  const revenue = inactive ? 0 : Math.round(base);
  const margin = c.flags.has('rule:capital_breach') ? -0.25 : -0.05 + rng.next() * 0.2;
  const net = Math.round(revenue * margin);
  const capital = c.capital ?? 0;
  const retained = c.flags.has('rule:capital_breach')
    ? -Math.round(capital * 4 + revenue * 0.3)
    : Math.round(revenue * (0.05 + rng.next() * 0.3));
  const equity = Math.round(capital + retained + net);
  const cl = Math.round(revenue * (0.08 + rng.next() * 0.15));
  const ncl = Math.round(revenue * rng.next() * 0.1);
  const tl = cl + ncl;
  const ta = Math.max(equity + tl, Math.round(revenue * 0.2));
  const ca = Math.round(ta * (0.4 + rng.next() * 0.4));
  return {
    revenue,
    net_profit: net,
    current_assets: full ? ca : null,
    non_current_assets: full ? ta - ca : null,
    total_assets: ta,
    current_liabilities: full ? cl : null,
    non_current_liabilities: full ? ncl : null,
    total_liabilities: full ? tl : null,
    share_capital: c.capital,
    retained_earnings: full ? retained : null,
    equity,
  };
}

const r2 = (v: number) => (Number.isFinite(v) ? Math.round(v * 100) / 100 : null);

export function ratios(f: Figures): Record<string, number | null> {
  const n = (k: string) => f[k] ?? 0;
  const rev = n('revenue');
  const ebitda = Math.round(n('net_profit') + rev * 0.04);
  return {
    ebitda,
    current_ratio: r2(n('current_assets') / n('current_liabilities')),
    quick_ratio: r2((n('current_assets') * 0.8) / n('current_liabilities')),
    cash_ratio: r2((n('current_assets') * 0.3) / n('current_liabilities')),
    days_sales_outstanding: rev ? r2(((n('current_assets') * 0.4) / rev) * 365) : null,
    asset_turnover: r2(rev / n('total_assets')),
    debt_ratio: r2(n('total_liabilities') / n('total_assets')),
    operating_margin: rev ? r2(((n('net_profit') + rev * 0.02) / rev) * 100) : null,
    net_margin: rev ? r2((n('net_profit') / rev) * 100) : null,
    return_on_assets: r2((n('net_profit') / n('total_assets')) * 100),
    return_on_equity: n('equity') > 0 ? r2((n('net_profit') / n('equity')) * 100) : null,
  };
}

/** Valid filings, newest first, with figures; ratios for the latest five with full statements. */
export function financialYears(seed: number, c: Company) {
  const valid = reports(seed, c).filter((r) => r.status === 'valid');
  let withRatios = 0;
  return valid.map((r) => {
    const f = figures(seed, c, r.year, r.statements);
    const give = r.statements && withRatios < 5;
    if (give) withRatios++;
    return { year: r.year, figures: f, ratios: give ? ratios(f) : null };
  });
}

export function financialsView(seed: number, c: Company, lang: Lang) {
  const years = financialYears(seed, c);
  const rng = sectionRng(seed, c, 'rba');
  const shares = c.acts.map((_, k) => (k === 0 ? 0.7 + rng.next() * 0.3 : rng.next() * 0.3));
  const sum = shares.reduce((a, b) => a + b, 0) || 1;
  return {
    years,
    revenue_by_activity: years.length
      ? c.acts.map((a, k) => ({
          code: a.code,
          title: emtakTitle(a.code, a.version, lang),
          values: Object.fromEntries(
            years.map((y) => [String(y.year), y.figures.revenue == null ? null : Math.round((y.figures.revenue * shares[k]!) / sum)]),
          ),
        }))
      : [],
  };
}

export function annualReportList(seed: number, c: Company) {
  return reports(seed, c).map((r) => ({
    year: r.year,
    period_start: isoOf(r.start),
    period_end: isoOf(r.end),
    status: r.status,
    submitted_on: r.submitted === null ? null : isoOf(r.submitted),
    due_on: r.submitted === null ? isoOf(r.due) : null,
    employees: r.employees,
    has_statements: r.statements,
  }));
}

type Row = [et: string, en: string, ru: string, key: string | ((f: Figures) => number | null), total?: boolean];
const statementForms: { code: string; et: string; en: string; ru: string; rows: Row[] }[] = [
  {
    code: 'balance_sheet',
    et: 'Bilanss',
    en: 'Balance sheet',
    ru: 'Баланс',
    rows: [
      ['Raha', 'Cash', 'Денежные средства', (f) => Math.round((f.current_assets ?? 0) * 0.3)],
      ['Nõuded ja ettemaksed', 'Receivables and prepayments', 'Требования и предоплаты', (f) => Math.round((f.current_assets ?? 0) * 0.5)],
      ['Varud', 'Inventories', 'Запасы', (f) => Math.round((f.current_assets ?? 0) * 0.2)],
      ['Käibevarad kokku', 'Total current assets', 'Оборотные активы всего', 'current_assets', true],
      ['Materiaalsed põhivarad', 'Property, plant and equipment', 'Материальные основные средства', 'non_current_assets'],
      ['Põhivarad kokku', 'Total non-current assets', 'Основные средства всего', 'non_current_assets', true],
      ['Varad kokku', 'Total assets', 'Активы всего', 'total_assets', true],
      ['Lühiajalised kohustised kokku', 'Total current liabilities', 'Краткосрочные обязательства всего', 'current_liabilities', true],
      [
        'Pikaajalised kohustised kokku',
        'Total non-current liabilities',
        'Долгосрочные обязательства всего',
        'non_current_liabilities',
        true,
      ],
      ['Kohustised kokku', 'Total liabilities', 'Обязательства всего', 'total_liabilities', true],
      ['Osakapital nimiväärtuses', 'Share capital at nominal value', 'Уставный капитал по номиналу', 'share_capital'],
      [
        'Eelmiste perioodide jaotamata kasum (kahjum)',
        'Retained earnings (loss)',
        'Нераспределённая прибыль (убыток) прошлых периодов',
        'retained_earnings',
      ],
      ['Aruandeaasta kasum (kahjum)', 'Profit (loss) for the year', 'Прибыль (убыток) отчётного года', 'net_profit'],
      ['Omakapital kokku', 'Total equity', 'Собственный капитал всего', 'equity', true],
    ],
  },
  {
    code: 'income_statement',
    et: 'Kasumiaruanne',
    en: 'Income statement',
    ru: 'Отчёт о прибыли',
    rows: [
      ['Müügitulu', 'Revenue', 'Выручка', 'revenue'],
      ['Tööjõukulud', 'Labour expenses', 'Расходы на персонал', (f) => -Math.round((f.revenue ?? 0) * 0.3)],
      [
        'Ärikasum (kahjum)',
        'Operating profit (loss)',
        'Операционная прибыль (убыток)',
        (f) => Math.round((f.net_profit ?? 0) + (f.revenue ?? 0) * 0.02),
        true,
      ],
      ['Aruandeaasta kasum (kahjum)', 'Profit (loss) for the year', 'Прибыль (убыток) отчётного года', 'net_profit', true],
    ],
  },
  {
    code: 'cash_flow',
    et: 'Rahavoogude aruanne',
    en: 'Cash flow statement',
    ru: 'Отчёт о движении денежных средств',
    rows: [
      [
        'Rahavood äritegevusest',
        'Cash flows from operating activities',
        'Денежные потоки от основной деятельности',
        (f) => Math.round((f.net_profit ?? 0) * 1.2),
      ],
      [
        'Rahavood investeerimistegevusest',
        'Cash flows from investing activities',
        'Денежные потоки от инвестиционной деятельности',
        (f) => -Math.round((f.non_current_assets ?? 0) * 0.1),
      ],
      [
        'Rahavood finantseerimistegevusest',
        'Cash flows from financing activities',
        'Денежные потоки от финансовой деятельности',
        (f) => -Math.round((f.non_current_liabilities ?? 0) * 0.1),
      ],
      [
        'Rahavood kokku',
        'Total cash flows',
        'Денежные потоки всего',
        (f) => Math.round((f.net_profit ?? 0) * 1.2 - (f.non_current_assets ?? 0) * 0.1 - (f.non_current_liabilities ?? 0) * 0.1),
        true,
      ],
    ],
  },
];

/** One year's valid report; null when no report was filed for that year. */
export function annualReportView(seed: number, c: Company, year: number, lang: Lang) {
  const y = financialYears(seed, c).find((r) => r.year === year);
  if (!y) return null;
  const row = reports(seed, c).find((r) => r.year === year && r.status === 'valid')!;
  return {
    year,
    figures: y.figures,
    ratios: y.ratios,
    statements: row.statements
      ? statementForms.map((s) => ({
          code: s.code,
          name: tr(lang, s.et, s.en, s.ru),
          rows: s.rows.map(([et, en, ru, key, total]) => ({
            name: tr(lang, et, en, ru),
            value: typeof key === 'string' ? (y.figures[key] ?? null) : key(y.figures),
            total: total ?? false,
          })),
        }))
      : [],
  };
}

export function quarterlyTaxesView(seed: number, c: Company) {
  if (c.status === 'D' || legalForms[c.form]!.abbr === 'KÜ') return [];
  const rng = sectionRng(seed, c, 'quarters');
  const regQ = c.reg;
  const out = [];
  // Q3 2026 was published on 10 October; the dataset's today is 20 November 2026.
  for (let k = 0; k < 12; k++) {
    const year = 2026 - Math.floor((k + 1) / 4);
    const quarter = ((((2 - k) % 4) + 4) % 4) + 1;
    if (dayOf(`${year}-${String(quarter * 3).padStart(2, '0')}-28`) < regQ) break;
    const emp = c.flags.has('rule:inactive') ? 0 : Math.max(0, c.employees + rng.int(-2, 2));
    const turnover = c.flags.has('rule:inactive')
      ? 0
      : Math.round(emp * 14_000 * (0.7 + rng.next() * 0.6) - (rng.chance(0.02) ? 20_000 : 0));
    const labour = Math.round(emp * 3 * 1_900 * 0.36);
    out.push({ year, quarter, taxes: Math.round(labour + Math.max(0, turnover) * 0.04), labour_taxes: labour, turnover, employees: emp });
  }
  return out;
}
