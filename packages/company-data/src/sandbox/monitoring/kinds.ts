import type { MonitoringCategory } from '@company-data/core/schemas/events';
import type { Rng } from '../dataset/prng';
import type { CompanyFacts, StatusCode } from './company-port';

/**
 * Every kind of monitoring.change the sandbox produces, in one table (docs/sandbox-events.md lists it).
 * details always has `old` and `new`: plain values for changed fields, a record for added items
 * (old null) or removed items (new null). Extra keys give context (currency, year, ...).
 */

export type Tone = 'bad' | 'good' | 'neutral';
export type Details = { old: unknown; new: unknown } & Record<string, unknown>;

export interface KindSpec {
  kind: string;
  category: MonitoringCategory;
  /** Makes details from the company's current facts; null when the kind cannot apply now. */
  make(c: CompanyFacts, rng: Rng, today: string): Details | null;
  tone(d: Details): Tone;
}

/** The sandbox's rating scale and the score range of each rating (as the credit score view rates). */
const RATINGS = ['AAA', 'AA', 'A', 'BBB', 'BB', 'B', 'C', 'D'];
const SCORE_RANGE: Record<string, [number, number]> = {
  AAA: [90, 100],
  AA: [80, 89],
  A: [70, 79],
  BBB: [60, 69],
  BB: [50, 59],
  B: [40, 49],
  C: [20, 39],
  D: [0, 19],
};
const FIRST = ['Mari', 'Jaan', 'Kadri', 'Andres', 'Liis', 'Toomas', 'Kati', 'Peeter', 'Anu', 'Margus'];
const LAST = ['Tamm', 'Saar', 'Sepp', 'Mägi', 'Kask', 'Kukk', 'Rebane', 'Ilves', 'Lepik', 'Oja'];
const STREETS = ['Pärnu mnt', 'Narva mnt', 'Tartu mnt', 'Ahtri tn', 'Rüütli tn', 'Lossi tn', 'Kalda tee'];
const WORDS = ['Nord', 'Balti', 'Tehno', 'Mets', 'Kivi', 'Laine', 'Valgus', 'Sild'];

const person = (rng: Rng) => `${rng.pick(FIRST)} ${rng.pick(LAST)}`;
const caseNumber = (rng: Rng, prefix: string) => `${prefix}-${rng.int(20, 26)}-${rng.int(1000, 99999)}`;
const fixed = (t: Tone) => () => t;
const ratingIndex = (r: unknown) => (typeof r === 'string' ? RATINGS.indexOf(r) : -1);
const statusTone = (d: Details): Tone => (d.new === 'R' ? 'good' : d.old === 'R' ? 'bad' : 'neutral');
const rise =
  (up: Tone, down: Tone) =>
  (d: Details): Tone =>
    Number(d.new ?? 0) > Number(d.old ?? 0) ? up : Number(d.new ?? 0) < Number(d.old ?? 0) ? down : 'neutral';

/** Status moves the sandbox makes: registered → liquidation or bankrupt, liquidation → deleted or back. */
const STATUS_NEXT: Record<StatusCode, StatusCode[]> = { R: ['L', 'N'], L: ['D', 'R'], N: ['D'], D: [] };

export const kinds: readonly KindSpec[] = [
  /* registry */
  {
    kind: 'name_changed',
    category: 'registry',
    tone: fixed('neutral'),
    make: (c, rng) => ({ old: c.name, new: `${rng.pick(WORDS)}${rng.pick(WORDS).toLowerCase()} ${c.legal_form_abbr}` }),
  },
  {
    kind: 'address_changed',
    category: 'registry',
    tone: fixed('neutral'),
    make: (c, rng) => ({
      old: c.address,
      new: `${c.county ?? 'Harju maakond'}, Tallinn, ${rng.pick(STREETS)} ${rng.int(1, 120)}, 1${rng.int(1000, 5999)}`,
    }),
  },
  {
    kind: 'status_changed',
    category: 'registry',
    tone: statusTone,
    make: (c, rng) => (STATUS_NEXT[c.status].length ? { old: c.status, new: rng.pick(STATUS_NEXT[c.status]) } : null),
  },
  {
    kind: 'activity_changed',
    category: 'registry',
    tone: fixed('neutral'),
    make: (c, rng) => ({ old: c.activity_codes[0] ?? null, new: rng.pick(['62011', '46901', '41201', '70221', '47911', '49411']) }),
  },
  {
    kind: 'capital_changed',
    category: 'registry',
    tone: rise('good', 'bad'),
    make: (c, rng) => ({
      old: c.share_capital,
      new: Math.max(2500, Math.round((c.share_capital ?? 2500) * (rng.chance(0.7) ? 2 : 0.5))),
      currency: 'EUR',
    }),
  },
  /* people */
  {
    kind: 'board_member_added',
    category: 'people',
    tone: fixed('neutral'),
    make: (_c, rng) => ({ old: null, new: { name: person(rng), role: 'JUHL' } }),
  },
  {
    kind: 'board_member_removed',
    category: 'people',
    tone: fixed('neutral'),
    make: (c, rng) => (c.board.length ? { old: { name: rng.pick(c.board), role: 'JUHL' }, new: null } : null),
  },
  {
    kind: 'shareholder_changed',
    category: 'people',
    tone: fixed('neutral'),
    make: (_c, rng) => {
      const old = rng.int(0, 10) * 10;
      return {
        old: old || null,
        new: Math.min(100, old + rng.int(1, 5) * 10),
        party: { name: person(rng), type: 'person' },
        unit: 'percent',
      };
    },
  },
  {
    kind: 'beneficial_owner_changed',
    category: 'people',
    tone: fixed('neutral'),
    make: (c, rng) => ({ old: c.board.slice(0, 1), new: [person(rng)] }),
  },
  /* tax */
  {
    kind: 'tax_debt',
    category: 'tax',
    tone: fixed('bad'),
    make: (c, rng, today) => ({
      old: c.tax_debt ?? 0,
      new: Math.round(((c.tax_debt ?? 0) + rng.amount(150, 40_000)) * 100) / 100,
      snapshot_date: today,
    }),
  },
  {
    kind: 'tax_debt_cleared',
    category: 'tax',
    tone: fixed('good'),
    make: (c, _rng, today) => (c.tax_debt ? { old: c.tax_debt, new: 0, snapshot_date: today } : null),
  },
  {
    kind: 'declaration_missing',
    category: 'tax',
    tone: fixed('bad'),
    make: (_c, rng, today) => ({ old: null, new: { type: rng.pick(['KMD', 'TSD']), due_on: today } }),
  },
  {
    kind: 'vat_deregistered',
    category: 'tax',
    tone: fixed('bad'),
    make: (c) => (c.vat_number ? { old: c.vat_number, new: null } : null),
  },
  /* court */
  {
    kind: 'court_case',
    category: 'court',
    tone: fixed('bad'),
    make: (_c, rng, today) => ({
      old: null,
      new: {
        case_number: caseNumber(rng, '2'),
        date: today,
        proceeding_type: 'civil',
        decision_type: 'ruling',
        category: rng.pick(['debt claim', 'contract dispute', 'labour dispute']),
      },
    }),
  },
  {
    kind: 'payment_order',
    category: 'court',
    tone: fixed('bad'),
    make: (_c, rng, today) => ({
      old: null,
      new: {
        case_number: caseNumber(rng, '2-M'),
        date: today,
        creditor: { name: `${rng.pick(WORDS)} Finance AS`, registry_code: null },
        amount: rng.amount(200, 25_000),
      },
    }),
  },
  {
    kind: 'enforcement',
    category: 'court',
    tone: fixed('bad'),
    make: (_c, rng, today) => ({
      old: null,
      new: {
        date: today,
        creditor: { name: 'Maksu- ja Tolliamet', registry_code: '70000349' },
        bailiff: `${person(rng)} Büroo`,
        amount: rng.amount(300, 60_000),
      },
    }),
  },
  /* announcements */
  {
    kind: 'announcement',
    category: 'announcements',
    tone: (d) => ((d.new as { type?: string })?.type === 'bankruptcy' ? 'bad' : 'neutral'),
    make: (_c, rng, today) => {
      const type = rng.pick(['general_meeting', 'merger', 'bankruptcy', 'capital_reduction']);
      return { old: null, new: { date: today, type, title: `Teadaanne: ${type.replace(/_/g, ' ')}` } };
    },
  },
  {
    kind: 'registry_ruling',
    category: 'announcements',
    tone: fixed('neutral'),
    make: (_c, rng, today) => ({
      old: null,
      new: { ruling_number: `${rng.int(10_000_000, 99_999_999)}`, date: today, type: 'entry_change' },
    }),
  },
  /* reports */
  {
    kind: 'annual_report_filed',
    category: 'reports',
    tone: fixed('good'),
    make: (c, rng, today) => ({
      old: null,
      new: {
        year: Number(today.slice(0, 4)) - 1,
        submitted_on: today,
        revenue: c.revenue ?? rng.amount(10_000, 2_000_000),
        employees: c.employees,
      },
    }),
  },
  {
    kind: 'annual_report_overdue',
    category: 'reports',
    tone: fixed('bad'),
    make: (_c, _rng, today) => ({ old: null, new: { year: Number(today.slice(0, 4)) - 1, due_on: `${today.slice(0, 4)}-06-30` } }),
  },
  /* rating */
  {
    kind: 'rating_changed',
    category: 'rating',
    tone: (d) => (ratingIndex(d.new) < ratingIndex(d.old) ? 'good' : ratingIndex(d.new) > ratingIndex(d.old) ? 'bad' : 'neutral'),
    // Only rated companies (bankrupt, deleted and not-covered ones have no rating to change).
    make: (c, rng) => {
      if (c.rating === null) return null;
      const i = Math.max(0, ratingIndex(c.rating));
      const step = rng.chance(0.5) ? -1 : 1;
      // At either end of the scale the rating can only move one way.
      const j = i + step >= 0 && i + step <= RATINGS.length - 1 ? i + step : i - step;
      const [lo, hi] = SCORE_RANGE[RATINGS[j]!]!;
      const score = rng.int(lo, hi);
      return { old: c.rating, new: RATINGS[j], old_score: c.score, new_score: score };
    },
  },
  /* assets */
  {
    kind: 'property_acquired',
    category: 'assets',
    tone: fixed('good'),
    make: (_c, rng, today) => ({
      old: null,
      new: {
        cadastral_code: `78401:${rng.int(100, 999)}:${rng.int(1000, 9999)}`,
        type: rng.pick(['land', 'apartment', 'building']),
        from: today,
      },
    }),
  },
  {
    kind: 'property_sold',
    category: 'assets',
    tone: fixed('neutral'),
    make: (_c, rng, today) => ({
      old: { cadastral_code: `78401:${rng.int(100, 999)}:${rng.int(1000, 9999)}`, type: 'land' },
      new: null,
      until: today,
    }),
  },
  {
    kind: 'domain_registered',
    category: 'assets',
    tone: fixed('neutral'),
    make: (c, rng, today) => ({
      old: null,
      new: {
        domain: `${
          c.name
            .split(/\s+/)[0]!
            .toLowerCase()
            .replace(/[^a-z0-9]/g, '') || 'firma'
        }${rng.int(1, 99)}.ee`,
        registered_on: today,
      },
    }),
  },
  {
    kind: 'permit_granted',
    category: 'assets',
    tone: fixed('good'),
    make: (_c, rng, today) => ({
      old: null,
      new: { number: `L.${rng.int(100_000, 999_999)}`, type: rng.pick(['activity_licence', 'environmental_permit']), issued_on: today },
    }),
  },
];

export const kindsByName = new Map(kinds.map((k) => [k.kind, k]));

export function kindsOf(category: string): KindSpec[] {
  return kinds.filter((k) => k.category === category);
}
