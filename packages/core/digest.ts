/**
 * One chat message for many monitoring changes: a watched portfolio can change hundreds of times in one
 * detection run, and one message per change is noise. Bad news first, grouped by company, counts per kind,
 * at most `maxLines` lines then "and 37 more", safe to post as Slack mrkdwn. Pure (no fs, timers or n8n):
 * the Poll Trigger and `company-data watch` build the same text.
 * The severity of each kind is decided in docs/decisions/watch.md, "The digest".
 */

import { changeKindLabel, changeSummary, type ChangeEventLike, type SummaryLang } from './event-summary';
import { isJsonObject } from './json';

export type DigestTone = 'bad' | 'neutral' | 'good';
const toneOrder: readonly DigestTone[] = ['bad', 'neutral', 'good'];

/**
 * Kinds from worst to mildest within a tone. The service's tone says whether a change is bad or good news for
 * the company; this order says which bad news a reader should see first: the company's existence (status,
 * bankruptcy notice), money already being collected (enforcement, tax debt, payment orders), then disputes,
 * the credit picture and late filings. Kinds this version does not know come after the known ones of their tone.
 */
const kindOrder: readonly string[] = [
  'status_changed',
  'announcement',
  'enforcement',
  'tax_debt',
  'payment_order',
  'court_case',
  'vat_deregistered',
  'rating_changed',
  'capital_changed',
  'annual_report_overdue',
  'declaration_missing',
  'name_changed',
  'board_member_removed',
  'board_member_added',
  'beneficial_owner_changed',
  'shareholder_changed',
  'address_changed',
  'activity_changed',
  'registry_ruling',
  'property_sold',
  'domain_registered',
  'tax_debt_cleared',
  'annual_report_filed',
  'property_acquired',
  'permit_granted',
];
const kindRank = new Map(kindOrder.map((k, i) => [k, i]));

/** When an event carries no tone (or one this version does not know): the tone its kind nearly always has. */
const usualTone: Record<string, DigestTone> = {
  tax_debt: 'bad',
  declaration_missing: 'bad',
  vat_deregistered: 'bad',
  court_case: 'bad',
  payment_order: 'bad',
  enforcement: 'bad',
  annual_report_overdue: 'bad',
  tax_debt_cleared: 'good',
  annual_report_filed: 'good',
  property_acquired: 'good',
  permit_granted: 'good',
};

/** Count labels where the sentence label is shared by two kinds ("Tax debt" rises and is cleared). */
const countLabels: Record<string, { en: string; et: string }> = {
  tax_debt_cleared: { en: 'Tax debt cleared', et: 'maksuvõlg tasutud' },
};

export function changeTone(kind: string, tone: unknown): DigestTone {
  return tone === 'bad' || tone === 'good' || tone === 'neutral' ? tone : (usualTone[kind] ?? 'neutral');
}

/** Lower is worse: tone first (bad, neutral, good), then the kind's place in kindOrder. */
export function changeSeverity(kind: string, tone: unknown): number {
  return toneOrder.indexOf(changeTone(kind, tone)) * 1000 + (kindRank.get(kind) ?? kindOrder.length);
}

const mark: Record<DigestTone, string> = { bad: '🔴', neutral: '⚪', good: '🟢' };

/**
 * Text from the data (company names, values, list names) made inert for Slack mrkdwn: &, < and > as Slack's
 * entities (so no <!here>, <@U…> or <url|link> can form), and a word joiner (U+2060, invisible) after @ and
 * before the formatting marks * _ ~ `, so neither a mention nor bold or italics can start; a dot inside
 * a domain-like word and "://" become the one-dot leader (U+2024) and ":⁠//", so no link is made.
 */
export function slackEscape(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/@/g, '@\u2060')
    .replace(/[*_~`]/g, (c) => `\u2060${c}`)
    .replace(/:\/\//g, ':\u2060//')
    .replace(/([\p{L}\p{N}])\.(?=[\p{L}\p{N}-]*\p{L})/gu, '$1\u2024');
}

/** The longest line a change gets; the sentence of an array-valued change can run long. */
const MAX_LINE = 300;
const clip = (s: string) => (s.length > MAX_LINE ? `${s.slice(0, MAX_LINE - 1)}…` : s);

export interface DigestOptions {
  lang?: SummaryLang;
  /** At most this many lines of companies and changes (default 20); the rest is counted as "and 37 more". */
  maxLines?: number;
  /** The headline's first words (default "Company Data"). */
  title?: string;
}

export interface DigestKindCount {
  kind: string;
  label: string;
  tone: DigestTone;
  count: number;
}

export interface Digest {
  /** The message, Slack mrkdwn; "" when there are no changes. */
  text: string;
  /** Changes (distinct event ids) and companies. */
  total: number;
  companies: number;
  tones: Record<DigestTone, number>;
  /** Per kind (and tone), worst first. */
  kinds: DigestKindCount[];
  /** Changes listed and changes left out for the line cap. */
  shown: number;
  more: number;
}

interface Change {
  event: ChangeEventLike;
  kind: string;
  tone: DigestTone;
  severity: number;
  detectedAt: string;
  code: string;
  name: string;
}

function readChange(event: unknown): Change | undefined {
  if (!isJsonObject(event) || (event.type !== undefined && event.type !== 'monitoring.change')) return undefined;
  const data = event.data;
  if (!isJsonObject(data) || !isJsonObject(data.company)) return undefined;
  const code = typeof data.company.registry_code === 'string' ? data.company.registry_code : String(data.company.registry_code ?? '');
  const name = typeof data.company.name === 'string' ? data.company.name : code;
  const kind = typeof data.kind === 'string' && data.kind ? data.kind : 'change';
  return {
    event: { data: { ...data, company: { registry_code: code, name }, kind } } as ChangeEventLike,
    kind,
    tone: changeTone(kind, data.tone),
    severity: changeSeverity(kind, data.tone),
    detectedAt: typeof data.detected_at === 'string' ? data.detected_at : '',
    code,
    name,
  };
}

const texts = {
  en: {
    changes: (n: number) => (n === 1 ? '1 change' : `${n} changes`),
    at: (n: number) => (n === 1 ? 'at 1 company' : `at ${n} companies`),
    tones: { bad: 'bad news', neutral: 'neutral', good: 'good news' } as Record<DigestTone, string>,
    more: (n: number) => `…and ${n} more`,
  },
  et: {
    changes: (n: number) => (n === 1 ? '1 muudatus' : `${n} muudatust`),
    at: (n: number) => (n === 1 ? '1 ettevõttes' : `${n} ettevõttes`),
    tones: { bad: 'halvad uudised', neutral: 'neutraalsed', good: 'head uudised' } as Record<DigestTone, string>,
    more: (n: number) => `…ja veel ${n}`,
  },
} as const;

const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** The monitoring changes of the events, each id once (other events and malformed ones are left out). */
function distinctChanges(events: readonly unknown[]): Change[] {
  const seen = new Set<string>();
  const changes: Change[] = [];
  for (const e of events) {
    const id = isJsonObject(e) && typeof e.id === 'string' ? e.id : undefined;
    if (id !== undefined) {
      if (seen.has(id)) continue;
      seen.add(id);
    }
    const c = readChange(e);
    if (c) changes.push(c);
  }
  return changes;
}

/** Counts per tone and per kind (worst kind first), and the changes grouped by company. */
function countChanges(changes: readonly Change[], lang: SummaryLang) {
  const tones: Record<DigestTone, number> = { bad: 0, neutral: 0, good: 0 };
  const kindCounts = new Map<string, DigestKindCount & { severity: number }>();
  const byCompany = new Map<string, Change[]>();
  for (const c of changes) {
    tones[c.tone]++;
    const key = `${c.tone}:${c.kind}`;
    const k = kindCounts.get(key);
    if (k) k.count++;
    else
      kindCounts.set(key, {
        kind: c.kind,
        label: capitalise(countLabels[c.kind]?.[lang] ?? changeKindLabel(c.kind, lang)),
        tone: c.tone,
        count: 1,
        severity: c.severity,
      });
    const list = byCompany.get(c.code);
    if (list) list.push(c);
    else byCompany.set(c.code, [c]);
  }
  const kinds = [...kindCounts.values()]
    .sort((a, b) => a.severity - b.severity || b.count - a.count)
    .map((k): DigestKindCount => ({ kind: k.kind, label: k.label, tone: k.tone, count: k.count }));
  return { tones, kinds, byCompany };
}

/** Each company's changes worst first; companies by their worst news, then more bad news, then by name. */
function orderCompanies(byCompany: ReadonlyMap<string, Change[]>): Change[][] {
  const bySeverity = (a: Change, b: Change) => a.severity - b.severity || a.detectedAt.localeCompare(b.detectedAt);
  const companies = [...byCompany.values()].map((list) => list.sort(bySeverity));
  const bad = (list: Change[]) => list.filter((c) => c.tone === 'bad').length;
  return companies.sort(
    (a, b) => a[0]!.severity - b[0]!.severity || bad(b) - bad(a) || b.length - a.length || a[0]!.name.localeCompare(b[0]!.name),
  );
}

/** The lines of companies and their changes, at most maxLines of them, and how many changes they show. */
function companyLines(companies: readonly Change[][], maxLines: number, lang: SummaryLang): { lines: string[]; shown: number } {
  const lines: string[] = [];
  let shown = 0;
  for (const list of companies) {
    // A company heading is worth a line only when at least one of its changes fits under it.
    if (lines.length + 2 > maxLines) break;
    const c0 = list[0]!;
    lines.push(`*${slackEscape(c0.name)}* (${slackEscape(c0.code)})`);
    for (const c of list) {
      if (lines.length + 1 > maxLines) break;
      const sentence = changeSummary(c.event, lang, { company: false, lists: false });
      lines.push(`${mark[c.tone]} ${slackEscape(clip(sentence))}`);
      shown++;
    }
  }
  return { lines, shown };
}

/** One digest of monitoring.change events (other events and repeated ids are left out). */
export function buildDigest(events: readonly unknown[], opts: DigestOptions = {}): Digest {
  const lang: SummaryLang = opts.lang === 'et' ? 'et' : 'en';
  const maxLines = Math.max(0, Math.floor(opts.maxLines ?? 20));
  const t = texts[lang];
  const changes = distinctChanges(events);
  const { tones, kinds, byCompany } = countChanges(changes, lang);
  const companies = orderCompanies(byCompany);

  const result: Digest = { text: '', total: changes.length, companies: companies.length, tones, kinds, shown: 0, more: 0 };
  if (changes.length === 0) return result;

  const title = slackEscape(opts.title ?? 'Company Data');
  const head = [
    `*${title}: ${t.changes(changes.length)} ${t.at(companies.length)}*`,
    toneOrder
      .filter((tone) => tones[tone] > 0)
      .map((tone) => `${mark[tone]} ${capitalise(t.tones[tone])} ${tones[tone]}`)
      .join(' · '),
    kinds.map((k) => `${slackEscape(k.label)} ${k.count}`).join(' · '),
  ];
  const { lines, shown } = companyLines(companies, maxLines, lang);
  result.shown = shown;
  result.more = changes.length - shown;
  if (result.more > 0) lines.push(`_${t.more(result.more)}_`);
  result.text = [...head, '', ...lines].join('\n');
  return result;
}
