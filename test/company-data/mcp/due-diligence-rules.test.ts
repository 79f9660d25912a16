/**
 * The red-flag rules of company_due_diligence at their edges (the sandbox's fixtures, read over HTTP in
 * due-diligence.test.ts, cover the main cases): severity steps by date and amount, what a failed section
 * gives (nothing), and the order of the flags.
 */
import { describe, expect, it } from 'vitest';
import { redFlags, riskLevel } from '../../../packages/company-data/src/mcp/due-diligence/red-flags';
import { buildReport } from '../../../packages/company-data/src/mcp/due-diligence/report';
import {
  sectionSpecs,
  type Row,
  type SectionKey,
  type SectionResult,
  type Sections,
} from '../../../packages/company-data/src/mcp/due-diligence/sections';

const TODAY = '2026-11-20';
const healthyProfile = {
  registry_code: '13545698',
  name: 'Test OÜ',
  status: { code: 'R', label: 'Registered' },
  registered_on: '2012-05-14',
};

/** Every section answered with nothing to report, but what `over` sets. */
function sections(over: Partial<Record<SectionKey, SectionResult | Row[]>> = {}): Sections {
  const base: Record<SectionKey, Row[]> = {
    profile: [healthyProfile],
    representatives: [{ party: { name: 'A' }, role: { label: 'Board member' }, from: '2015-01-01' }],
    beneficial_owners: [{ party: { name: 'B' }, role: { label: 'Beneficial owner' }, from: '2015-01-01' }],
    credit_score: [{ rated: true, rating: 'AA', score: 85, probability_of_default: 0.002, date: '2026-11-19' }],
    tax_debt: [{ total: 0 }],
    tax_declarations: [{}],
    court_cases: [],
    enforcements: [],
    payment_orders: [],
    annual_reports: [{ year: 2025, status: 'valid', submitted_on: '2026-04-01' }],
    financials: [{ year: 2025, revenue: 100_000, net_profit: 5000, equity: 20_000 }],
  };
  return Object.fromEntries(
    sectionSpecs.map(({ key }) => {
      const v = over[key] ?? base[key];
      return [key, Array.isArray(v) ? { ok: true, rows: v, total: v.length } : v];
    }),
  ) as Sections;
}
const failed = (key: SectionKey): SectionResult => ({
  ok: false,
  error: { section: key, source: 'x', code: 'server_error', status: 500, message: 'down' },
  cause: new Error('down'),
});
const flagsOf = (over: Parameters<typeof sections>[0]) => redFlags(sections(over), TODAY);
const one = (over: Parameters<typeof sections>[0], code: string) => flagsOf(over).find((f) => f.code === code);

describe('red-flag rules', () => {
  it('a healthy company has none, and low risk', () => {
    expect(flagsOf({})).toEqual([]);
    expect(riskLevel([])).toBe('low');
  });

  it('tax debt wholly in a payment schedule or contested is medium; otherwise high, dated by the list', () => {
    const claims = (scheduled: number, contested: number) => [
      { total: 1000, snapshot_date: '2026-11-05', claims: [{ label: 'VAT', debt: 1000, in_payment_schedule: scheduled, contested }] },
    ];
    expect(one({ tax_debt: claims(0, 0) }, 'tax_debt')).toMatchObject({ severity: 'high', date: '2026-11-05', source: 'risk_tax_debt' });
    expect(one({ tax_debt: claims(600, 400) }, 'tax_debt')!.severity).toBe('medium');
    expect(one({ tax_debt: claims(600, 0) }, 'tax_debt')!.text).toMatch(/600 EUR in a payment schedule/);
  });

  it('records weigh by age: recent enforcements high, older medium; old court cases low', () => {
    const enf = (date: string) => ({ date, creditor: { name: 'C' }, bailiff: 'B', amounts: { total: 100 } });
    expect(one({ enforcements: [enf('2025-12-01')] }, 'enforcements')!.severity).toBe('high');
    const old = one({ enforcements: [enf('2023-01-01'), enf('2022-01-01')] }, 'enforcements')!;
    expect(old).toMatchObject({ severity: 'medium', date: '2023-01-01' });
    expect(old.text).toMatch(/^2 enforcement proceedings, newest 2023-01-01 \(100 EUR, creditor C\), none in the last 24 months/);
    expect(one({ court_cases: [{ date: '2020-03-01', case_number: '2-20-1' }] }, 'court_cases')!.severity).toBe('low');
    expect(one({ court_cases: [{ date: '2025-03-01', case_number: '2-25-1' }] }, 'court_cases')!.severity).toBe('medium');
  });

  it('the credit score: the worst of rating, probability of default and rule', () => {
    const score = (s: Row) => ({ credit_score: [{ rated: true, date: '2026-11-19', ...s }] });
    expect(one(score({ rating: 'BB', probability_of_default: 0.03 }), 'credit_score')!.severity).toBe('low');
    expect(one(score({ rating: 'BB', probability_of_default: 0.06 }), 'credit_score')!.severity).toBe('medium');
    expect(one(score({ rating: 'B', probability_of_default: 0.25 }), 'credit_score')!.severity).toBe('high');
    expect(one(score({ rating: 'A', probability_of_default: 0.01, rule: 'capital_breach' }), 'credit_score')!.severity).toBe('high');
    expect(one(score({ rating: 'D', probability_of_default: 0.9, rule: 'in_default' }), 'credit_score')!.severity).toBe('critical');
    expect(one(score({ rating: 'AAA', probability_of_default: 0.001 }), 'credit_score')).toBeUndefined();
    expect(one({ credit_score: [{ rated: false, reason: 'not_covered' }] }, 'credit_not_scored')!.severity).toBe('low');
    // Unrated because bankrupt: the status says it, unless the profile did not answer.
    const bankrupt = { credit_score: [{ rated: false, reason: 'bankrupt', date: '2026-11-19' }] };
    expect(one(bankrupt, 'credit_not_scored')).toBeUndefined();
    expect(one({ ...bankrupt, profile: failed('profile') }, 'credit_not_scored')!.severity).toBe('critical');
  });

  it('people: no board or no declared beneficial owner is medium for a registered company, not for a state body', () => {
    expect(one({ representatives: [] }, 'no_representatives')!.severity).toBe('medium');
    expect(one({ beneficial_owners: [] }, 'no_beneficial_owners')!.severity).toBe('medium');
    expect(flagsOf({ beneficial_owners: [], profile: [{ ...healthyProfile, registry_code: '70000310' }] })).toEqual([]);
    // Deleted: the status is the news, not the empty board.
    const deleted = flagsOf({ representatives: [], profile: [{ ...healthyProfile, status: { code: 'D' }, deleted_on: '2024-02-02' }] });
    expect(deleted.map((f) => f.code)).toEqual(['status_deleted']);
    expect(deleted[0]).toMatchObject({ severity: 'critical', date: '2024-02-02' });
  });

  it('figures, declarations, age', () => {
    expect(one({ financials: [{ year: 2025, equity: -500, net_profit: -900 }] }, 'negative_equity')!.severity).toBe('high');
    expect(one({ financials: [{ year: 2025, equity: 500, net_profit: -900 }] }, 'net_loss')!.text).toBe('Net loss of 900 EUR in 2025');
    expect(
      one({ tax_declarations: [{ missing: [{ label: 'VAT return', due_on: '2026-10-20' }], late: [] }] }, 'tax_declarations_missing'),
    ).toMatchObject({ severity: 'medium', date: '2026-10-20' });
    expect(one({ profile: [{ ...healthyProfile, registered_on: '2026-06-01' }] }, 'young_company')!.severity).toBe('low');
  });

  it('a failed section gives no flag, and the report names it and says it is incomplete', () => {
    const s = sections({ enforcements: failed('enforcements'), tax_debt: [{ total: 50, snapshot_date: '2026-11-05', claims: [] }] });
    const report = buildReport({ registryCode: '13545698', sections: s, today: TODAY, requests: 11 });
    expect(report.complete).toBe(false);
    expect(report.not_checked.map((n) => n.section)).toEqual(['enforcements']);
    expect(report.facts.enforcements).toBeUndefined();
    expect(report.red_flags.map((f) => f.code)).toEqual(['tax_debt']);
    expect(report.risk_level).toBe('high');
  });

  it('flags come worst first, then newest first', () => {
    const flags = flagsOf({
      court_cases: [{ date: '2025-01-01' }],
      payment_orders: [{ date: '2026-01-01', amounts: { total: 5 } }],
      enforcements: [{ date: '2026-02-01', amounts: { total: 5 } }],
      annual_reports: [{ year: 2025, status: 'overdue', due_on: '2026-06-30' }],
    });
    expect(flags.map((f) => [f.severity, f.code])).toEqual([
      ['high', 'annual_report_overdue'],
      ['high', 'enforcements'],
      ['medium', 'payment_orders'],
      ['medium', 'court_cases'],
    ]);
  });
});
