import type { Lang } from '@company-data/core/schemas/common';
import { financialYears, reports, sectionRng } from './financials';
import { declarationTypes, legalForms, scoreGroups, taxClaimTypes, tr, unratedReasons } from './labels';
import type { Company } from './model';
import { isoOf, TODAY, type Rng } from './prng';
import * as v from './vocab';

/* Risk and asset sections, generated on demand (pure functions of seed, company, lang). */

const STALE_DAYS = 90;
const trx = (lang: Lang, t: readonly [string, string, string]) => tr(lang, t[0], t[1], t[2]);
/** Tax debtors lists are monthly; the latest one before the dataset's today. */
const LATEST_LIST = TODAY - 15;

function has(c: Company, flag: string, rng: Rng, p: number): boolean {
  return c.flags.has(flag) || (c.flags.size === 0 && rng.chance(p));
}

function count(c: Company, flag: string, rng: Rng, p: number, few = 3): number {
  if (c.flags.has('many_rows')) return 26 + rng.int(4, 30);
  return has(c, flag, rng, p) ? rng.int(1, few + 2) : 0;
}

export function hasTaxDebt(seed: number, c: Company): boolean {
  const rng = sectionRng(seed, c, 'taxflag');
  return c.flags.has('tax_debt') || c.status === 'N' || (c.flags.size === 0 && c.status !== 'D' && rng.chance(0.04));
}

export function taxDebtView(seed: number, c: Company, lang: Lang) {
  const rng = sectionRng(seed, c, 'taxdebt');
  const none = { snapshot_date: null, total: 0, claims: [], history: [] };
  if (c.flags.has('tax_debt_stale')) {
    // The only list naming the company is older than 90 days: ignored (docs/sandbox.md).
    return { ...none, ignored_snapshot_date: isoOf(LATEST_LIST - STALE_DAYS - 45) };
  }
  if (!hasTaxDebt(seed, c)) return none;
  const types = [...taxClaimTypes].sort(() => rng.next() - 0.5).slice(0, rng.int(2, 4));
  const claims = types.map((t, k) => {
    const debt = rng.amount(150, 40_000);
    return {
      type: t.code,
      label: tr(lang, t.et, t.en, t.ru),
      debt,
      in_payment_schedule: k === 0 ? Math.round(debt * 0.5 * 100) / 100 : 0,
      contested: k === 1 ? Math.round(debt * 0.2 * 100) / 100 : 0,
    };
  });
  const sum = (k: 'debt' | 'in_payment_schedule' | 'contested') => Math.round(claims.reduce((a, x) => a + x[k], 0) * 100) / 100;
  const total = sum('debt');
  const history = [];
  for (let d = TODAY - 92; d < TODAY; d++) {
    const f = Math.min(1, 0.4 + ((d - (TODAY - 92)) / 92) * 0.6);
    history.push({
      date: isoOf(d),
      debt: Math.round(total * f * 100) / 100,
      in_payment_schedule: Math.round(sum('in_payment_schedule') * f * 100) / 100,
      contested: Math.round(sum('contested') * f * 100) / 100,
    });
  }
  return { snapshot_date: isoOf(LATEST_LIST), total, claims, history };
}

export function taxDeclarationsView(seed: number, c: Company, lang: Lang) {
  const rng = sectionRng(seed, c, 'decl');
  if (!has(c, 'declarations', rng, 0.03)) return { missing: [], late: [] };
  const pick = () => rng.pick(declarationTypes);
  const missing = Array.from({ length: rng.int(1, 2) }, (_, k) => {
    const t = pick();
    return { type: t.code, label: tr(lang, t.et, t.en, t.ru), due_on: isoOf(TODAY - 10 - k * 30) };
  });
  const late = Array.from({ length: rng.int(1, 3) }, (_, k) => {
    const t = pick();
    const due = TODAY - 70 - k * 30;
    return { type: t.code, label: tr(lang, t.et, t.en, t.ru), due_on: isoOf(due), submitted_on: isoOf(due + rng.int(3, 25)) };
  });
  return { missing, late };
}

const ratingFor = (score: number) =>
  score >= 90
    ? 'AAA'
    : score >= 80
      ? 'AA'
      : score >= 70
        ? 'A'
        : score >= 60
          ? 'BBB'
          : score >= 50
            ? 'BB'
            : score >= 40
              ? 'B'
              : score >= 20
                ? 'C'
                : 'D';

const factors = {
  risks: [
    ['tax_debt', 'Maksuvõlg', 'Tax debt', 'Налоговый долг', 'payment'],
    ['enforcements', 'Täitemenetlused', 'Enforcement proceedings', 'Исполнительные производства', 'payment'],
    ['low_equity', 'Madal omakapital', 'Low equity', 'Низкий капитал', 'financial'],
    ['falling_revenue', 'Langev müügitulu', 'Falling revenue', 'Падение выручки', 'financial'],
    ['young_company', 'Noor ettevõte', 'Young company', 'Молодая компания', 'background'],
    ['late_reports', 'Hilinenud aruanded', 'Late annual reports', 'Просроченные отчёты', 'activity'],
  ],
  strengths: [
    ['long_history', 'Pikk tegevusajalugu', 'Long history', 'Долгая история', 'background'],
    ['profitability', 'Kasumlikkus', 'Profitability', 'Прибыльность', 'financial'],
    ['solid_equity', 'Tugev omakapital', 'Solid equity', 'Крепкий капитал', 'financial'],
    ['tax_discipline', 'Maksudistsipliin', 'Taxes paid on time', 'Налоговая дисциплина', 'payment'],
    ['employees', 'Töötajate arv', 'Number of employees', 'Число работников', 'activity'],
  ],
} as const;

export function creditScoreView(seed: number, c: Company, lang: Lang) {
  const form = legalForms[c.form]!;
  const unrated = (reason: string) => {
    const e = unratedReasons.find((x) => x.code === reason)!;
    return {
      rated: false,
      reason,
      reason_label: tr(lang, e.et, e.en, e.ru),
      date: isoOf(TODAY - 1),
      score: null,
      rating: null,
      probability_of_default: null,
      rule: null,
      groups: [],
      risks: [],
      strengths: [],
    };
  };
  if (c.status === 'N') return unrated('bankrupt');
  if (c.status === 'L') return unrated('liquidation');
  if (c.status === 'D') return unrated('deleted');
  if (
    c.flags.has('not_covered') ||
    !form.accounting ||
    ['KÜ', 'AV'].includes(form.abbr) ||
    reports(seed, c).every((r) => r.status !== 'valid')
  )
    return unrated('not_covered');
  const rng = sectionRng(seed, c, 'score');
  const years = financialYears(seed, c);
  const latest = years[0]?.figures;
  const forced = [...c.flags].find((f) => f.startsWith('rule:'))?.slice(5);
  const rule =
    forced ??
    (hasTaxDebt(seed, c)
      ? 'in_default'
      : latest && (latest.equity ?? 0) < 0
        ? 'capital_breach'
        : years.length < 2
          ? 'thin_file'
          : (latest?.revenue ?? 0) === 0
            ? 'inactive'
            : null);
  let score = c.flags.has('healthy') ? rng.int(82, 97) : rng.int(35, 95);
  const cap = { in_default: 8, inactive: 35, thin_file: 55, capital_breach: 38 }[rule as 'in_default'] ?? 100;
  score = Math.min(score, cap);
  const rating = rule === 'in_default' ? 'D' : ratingFor(score);
  const pd = Math.round((1 / (1 + Math.exp((score - 30) / 9))) * 10_000) / 10_000;
  const fx = (list: readonly (readonly string[])[], sign: number) =>
    list.slice(0, 5).map(([factor, et, en, ru, group]) => ({
      factor: factor!,
      label: tr(lang, et!, en!, ru!),
      value: String(rng.int(1, 20)),
      group: group!,
      effect: sign * rng.int(1, 12),
    }));
  const risks = rule
    ? fx(
        factors.risks.filter((f) => rule !== 'in_default' || f[0] !== 'young_company'),
        -1,
      ).slice(0, rng.int(1, 5))
    : fx(factors.risks, -1).slice(0, rng.int(0, 2));
  const strengths = fx(factors.strengths, 1).slice(0, rule ? rng.int(0, 2) : rng.int(2, 5));
  return {
    rated: true,
    reason: null,
    date: isoOf(TODAY - 1),
    score,
    rating,
    probability_of_default: pd,
    rule,
    groups: scoreGroups.map((g) => ({
      group: g.code,
      label: tr(lang, g.et, g.en, g.ru),
      score: Math.max(0, Math.min(100, score + rng.int(-15, 15))),
    })),
    risks: risks.sort((a, b) => a.effect - b.effect),
    strengths: strengths.sort((a, b) => b.effect - a.effect),
  };
}

const byDateDesc = <T extends { date?: string | null }>(rows: T[]) =>
  rows.sort((a, b) => ((b.date ?? '') < (a.date ?? '') ? -1 : (b.date ?? '') > (a.date ?? '') ? 1 : 0));
const creditor = (rng: Rng, companies: readonly Company[]) => {
  if (rng.chance(0.6) && companies.length) {
    const o = companies[rng.int(0, companies.length - 1)]!;
    return { name: o.name, registry_code: o.code };
  }
  return { name: `${rng.pick(v.firstNamesFemale)} ${rng.pick(v.lastNames)}`, registry_code: null };
};
const caseNo = (rng: Rng, kind: number, date: number) =>
  `${kind}-${String(new Date(date * 86_400_000).getUTCFullYear()).slice(2)}-${rng.int(1000, 99999)}`;

/** First word of the name in plain ASCII letters: the company's e-mail, web and domain names. */
export function nameSlug(c: Company): string {
  return (
    c.name
      .split(' ')[0]!
      .toLowerCase()
      .normalize('NFD')
      .replace(/[^a-z]/g, '') || 'info'
  );
}

export interface RecordContext {
  seed: number;
  companies: readonly Company[];
}

type SectionFn = (ctx: RecordContext, c: Company, lang: Lang) => Record<string, unknown>[];

const proceedings = [
  ['tsiviilasi', 'Civil case', 'Гражданское дело'],
  ['haldusasi', 'Administrative case', 'Административное дело'],
  ['väärteoasi', 'Misdemeanour case', 'Дело о проступке'],
  ['kriminaalasi', 'Criminal case', 'Уголовное дело'],
] as const;
const decisions = [
  ['otsus', 'Judgment', 'Решение'],
  ['määrus', 'Ruling', 'Определение'],
] as const;
const categories = [
  ['Võlaõigus', 'Law of obligations', 'Обязательственное право'],
  ['Tööõigus', 'Employment law', 'Трудовое право'],
  ['Maksuõigus', 'Tax law', 'Налоговое право'],
  ['Pankrotiõigus', 'Bankruptcy law', 'Банкротное право'],
] as const;

/** Paged risk lists and profile-only record sections, by include key. */
export const recordSections: Record<string, SectionFn> = {
  court_cases(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'court');
    return byDateDesc(
      Array.from({ length: count(c, 'court', rng, 0.06) }, () => {
        const date = TODAY - rng.int(5, 3000);
        const p = rng.pick(proceedings);
        const d = rng.pick(decisions);
        const cat = rng.pick(categories);
        const no = caseNo(rng, rng.int(2, 3), date);
        return {
          case_number: no,
          date: isoOf(date),
          proceeding_type: trx(lang, p),
          decision_type: trx(lang, d),
          category: trx(lang, cat),
          judges: [rng.pick(v.judges)],
          ecli: rng.chance(0.7)
            ? `ECLI:EE:${rng.pick(['HMK', 'TMK', 'PMK', 'VMK'])}:${new Date(date * 86_400_000).getUTCFullYear()}:${no.replace(/-/g, '.')}`
            : null,
          other_companies: rng.int(0, 3),
        };
      }),
    );
  },
  payment_orders(ctx, c) {
    const rng = sectionRng(ctx.seed, c, 'po');
    return byDateDesc(
      Array.from({ length: count(c, 'payment_orders', rng, 0.04) }, () => {
        const date = TODAY - rng.int(5, 2000);
        const main = rng.amount(200, 30_000);
        const add = Math.round(main * 0.08 * 100) / 100;
        return {
          case_number: caseNo(rng, 2, date),
          date: isoOf(date),
          court_department: 'Pärnu Maakohtu maksekäsu osakond',
          creditor: creditor(rng, ctx.companies),
          amounts: {
            total: Math.round((main + add + 35 + 50) * 100) / 100,
            main_claim: main,
            additional_claim: add,
            state_fee: 35,
            procedure_cost: 50,
          },
        };
      }),
    );
  },
  enforcements(ctx, c) {
    const rng = sectionRng(ctx.seed, c, 'enf');
    return byDateDesc(
      Array.from({ length: count(c, 'enforcements', rng, 0.04) }, () => {
        const date = TODAY - rng.int(5, 2000);
        const main = rng.amount(100, 50_000);
        return {
          date: isoOf(date),
          creditor: creditor(rng, ctx.companies),
          bailiff: rng.pick(v.bailiffs),
          amounts: { total: Math.round((main + 60) * 100) / 100, main_claim: main, state_fee: 25, procedure_cost: 35 },
        };
      }),
    );
  },
  rulings(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'rulings');
    return byDateDesc(
      Array.from({ length: count(c, 'rulings', rng, 0.3) }, () => {
        const date = Math.max(c.reg, TODAY - rng.int(5, 5000));
        const no = String(rng.int(100000, 999999));
        const t = rng.pick([
          ['Kande muutmine', 'Change of entry', 'Изменение записи'],
          ['Hoiatustrahv', 'Penalty warning', 'Предупреждение о штрафе'],
          ['Esmakanne', 'First entry', 'Первичная запись'],
        ] as const);
        return {
          ruling_number: no,
          date: isoOf(date),
          type: trx(lang, t),
          summary: tr(lang, 'Registriosakonna kandemäärus', 'Ruling of the registration department', 'Определение регистрационного отдела'),
          url: `https://sandbox.invalid/rulings/${no}`,
        };
      }),
    );
  },
  announcements(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'ann');
    return byDateDesc(
      Array.from({ length: count(c, 'announcements', rng, 0.08) }, () => {
        const date = Math.max(c.reg, TODAY - rng.int(5, 3000));
        const t = rng.pick([
          ['Likvideerimisteade', 'Liquidation notice', 'Объявление о ликвидации'],
          ['Pankrotiteade', 'Bankruptcy notice', 'Объявление о банкротстве'],
          ['Ühinemisteade', 'Merger notice', 'Объявление о слиянии'],
        ] as const);
        return {
          date: isoOf(date),
          type: trx(lang, t),
          title: `${c.name}: ${trx(lang, t).toLowerCase()}`,
          text: tr(lang, 'Teade ametlikes teadaannetes.', 'Notice in the official gazette.', 'Объявление в официальном издании.'),
          url: `https://sandbox.invalid/notices/${rng.int(100000, 999999)}`,
        };
      }),
    );
  },
  consumer_disputes(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'disputes');
    return byDateDesc(
      Array.from({ length: count(c, 'disputes', rng, 0.01) }, () => {
        const date = TODAY - rng.int(10, 1500);
        return {
          case_number: `${rng.int(1, 9)}-${rng.int(100, 9999)}/${String(new Date(date * 86_400_000).getUTCFullYear()).slice(2)}`,
          date: isoOf(date),
          subject: tr(lang, 'Kauba puudus', 'Defective goods', 'Недостаток товара'),
          decision: tr(lang, 'Tarbija nõue rahuldati', 'Consumer claim upheld', 'Требование удовлетворено'),
          complied: c.flags.has('blacklist') ? false : rng.chance(0.6),
        };
      }),
    );
  },
  properties(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'props');
    return Array.from({ length: count(c, 'properties', rng, 0.05) }, () => {
      const from = Math.max(c.reg, TODAY - rng.int(30, 6000));
      return {
        registry_part: String(rng.int(1000, 99999)),
        cadastral_code: `${rng.int(10000, 99999)}:${String(rng.int(1, 999)).padStart(3, '0')}:${String(rng.int(1, 9999)).padStart(4, '0')}`,
        type: trx(
          lang,
          rng.pick([
            ['Kinnisasi', 'Immovable', 'Недвижимость'],
            ['Korteriomand', 'Apartment ownership', 'Квартирная собственность'],
          ] as const),
        ),
        address: `${rng.pick(v.streets)} ${rng.int(1, 99)}, ${rng.pick(['Tallinn', 'Tartu', 'Pärnu', 'Narva'])}`,
        area_m2: rng.int(30, 20000),
        share: rng.chance(0.8) ? '1/1' : '1/2',
        from: isoOf(from),
        until: rng.chance(0.15) ? isoOf(Math.min(TODAY - 1, from + rng.int(100, 1000))) : null,
      };
    });
  },
  domains(ctx, c) {
    const rng = sectionRng(ctx.seed, c, 'domains');
    const base = nameSlug(c);
    return Array.from({ length: count(c, 'domains', rng, 0.3, 1) }, (_, k) => {
      const reg = Math.max(c.reg, TODAY - rng.int(30, 5000));
      return {
        domain: `${base}${k ? k : ''}.${rng.pick(['ee', 'com.ee', 'eu'])}`,
        registered_on: isoOf(reg),
        expires_on: isoOf(TODAY + rng.int(10, 700)),
      };
    });
  },
  permits(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'permits');
    return Array.from({ length: count(c, 'permits', rng, 0.06) }, () => {
      const issued = Math.max(c.reg, TODAY - rng.int(30, 4000));
      const valid = rng.chance(0.5) ? issued + 1825 : null;
      return {
        number: `${rng.pick(['KMV', 'ETO', 'L'])}${rng.int(10000, 999999)}`,
        type: trx(
          lang,
          rng.pick([
            ['Majandustegevusteade', 'Notice of economic activity', 'Уведомление о деятельности'],
            ['Tegevusluba', 'Activity licence', 'Лицензия'],
          ] as const),
        ),
        title: trx(
          lang,
          rng.pick([
            ['Toitlustamine', 'Catering', 'Общепит'],
            ['Ehitamine', 'Construction', 'Строительство'],
            ['Jaekaubandus', 'Retail trade', 'Розничная торговля'],
          ] as const),
        ),
        issuer: rng.pick(['Tarbijakaitse ja Tehnilise Järelevalve Amet', 'Põllumajandus- ja Toiduamet', 'Maksu- ja Tolliamet']),
        issued_on: isoOf(issued),
        valid_until: valid === null ? null : isoOf(valid),
        status:
          valid !== null && valid < TODAY
            ? tr(lang, 'Kehtetu', 'Expired', 'Недействительно')
            : tr(lang, 'Kehtiv', 'Valid', 'Действительно'),
      };
    });
  },
  state_payments(ctx, c, lang) {
    const rng = sectionRng(ctx.seed, c, 'statepay');
    return byDateDesc(
      Array.from({ length: count(c, 'state_payments', rng, 0.05) }, () => ({
        date: isoOf(TODAY - rng.int(5, 1500)),
        payer: rng.pick([
          'Riigi Tugiteenuste Keskus',
          'Ettevõtluse ja Innovatsiooni Sihtasutus',
          'Põllumajanduse Registrite ja Informatsiooni Amet',
        ]),
        type: trx(
          lang,
          rng.pick([
            ['Toetus', 'Grant', 'Субсидия'],
            ['Hange', 'Procurement', 'Закупка'],
          ] as const),
        ),
        description: tr(lang, 'Riigieelarvest makstud summa', 'Paid from the state budget', 'Выплачено из госбюджета'),
        amount: rng.amount(500, 250_000),
      })),
    );
  },
};
