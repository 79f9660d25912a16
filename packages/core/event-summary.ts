/**
 * Ready-to-post sentences for events, so "Trigger → chat" needs no expression writing and a sheet of
 * events reads as text. Shared by the n8n trigger and the Sheets sync, so it stays free of n8n, fs,
 * timers and the environment (node bundles include it).
 * Kinds and details shapes follow docs/sandbox-events.md; an unknown kind still gets a plain sentence.
 */

import { companyStatusWord, type SummaryLang } from './vocabulary';
import { isJsonObject } from './json';

export type { SummaryLang };

type ValueFormat = 'money' | 'percent' | 'status' | 'text' | 'names' | 'rating' | 'ended';
interface KindText {
  en: string;
  et: string;
  /** How old and new are shown; records (added or removed items) are described by describeRecord. */
  format?: ValueFormat;
  /** English word before the company in "<label> <prep> <company>: <record>" (default "for"; "" for none). */
  prep?: string;
  /** The Estonian label is plural, so its verb is too ("tegelikud kasusaajad muutusid"). */
  etPlural?: boolean;
}

const kindTexts: Record<string, KindText> = {
  name_changed: { en: 'Name', et: 'nimi' },
  address_changed: { en: 'Address', et: 'aadress' },
  status_changed: { en: 'Status', et: 'staatus', format: 'status' },
  activity_changed: { en: 'Main activity', et: 'põhitegevusala' },
  capital_changed: { en: 'Share capital', et: 'osakapital', format: 'money' },
  board_member_added: { en: 'New board member', et: 'uus juhatuse liige' },
  board_member_removed: { en: 'Board member left', et: 'juhatusest lahkus', prep: '' },
  shareholder_changed: { en: 'Shareholding', et: 'osalus', format: 'percent' },
  beneficial_owner_changed: { en: 'Beneficial owners', et: 'tegelikud kasusaajad', format: 'names', etPlural: true },
  tax_debt: { en: 'Tax debt', et: 'maksuvõlg', format: 'money' },
  tax_debt_cleared: { en: 'Tax debt', et: 'maksuvõlg', format: 'money' },
  declaration_missing: { en: 'Missing tax declaration', et: 'esitamata maksudeklaratsioon' },
  vat_deregistered: { en: 'VAT registration', et: 'KMKR registreering', format: 'ended' },
  court_case: { en: 'New court case', et: 'uus kohtuasi' },
  payment_order: { en: 'New payment order', et: 'uus maksekäsk' },
  enforcement: { en: 'New enforcement proceeding', et: 'uus täitemenetlus' },
  announcement: { en: 'New official notice', et: 'uus ametlik teadaanne' },
  registry_ruling: { en: 'New registry ruling', et: 'uus registriosakonna määrus' },
  annual_report_filed: { en: 'Annual report filed', et: 'majandusaasta aruanne esitatud' },
  annual_report_overdue: { en: 'Annual report overdue', et: 'majandusaasta aruanne hilineb' },
  rating_changed: { en: 'Credit rating', et: 'krediidireiting', format: 'rating' },
  property_acquired: { en: 'Property acquired', et: 'kinnistu omandatud', prep: 'by' },
  property_sold: { en: 'Property sold', et: 'kinnistu võõrandatud', prep: 'by' },
  domain_registered: { en: 'Domain registered', et: 'domeen registreeritud' },
  permit_granted: { en: 'Permit granted', et: 'luba väljastatud' },
};

/** Every change kind with its English label, for option lists (the trigger's Kinds filter). */
export const changeKinds: ReadonlyArray<{ kind: string; label: string }> = Object.entries(kindTexts).map(([kind, t]) => ({
  kind,
  label: t.en,
}));

const words = {
  en: {
    rose: 'rose',
    fell: 'fell',
    changed: 'changed',
    ended: 'ended',
    none: 'none',
    list: 'list',
    lists: 'lists',
    ref: 'ref',
    more: 'more',
  },
  et: {
    rose: 'tõusis',
    fell: 'langes',
    changed: 'muutus',
    ended: 'lõppes',
    none: 'puudub',
    list: 'nimekiri',
    lists: 'nimekirjad',
    ref: 'viide',
    more: 'veel',
  },
} as const;
/** Estonian verbs of a plural subject. */
const etPluralVerbs: Record<string, string> = { tõusis: 'tõusid', langes: 'langesid', muutus: 'muutusid', lõppes: 'lõppesid' };

const locale = (lang: SummaryLang) => (lang === 'et' ? 'et-EE' : 'en-US');

export function formatNumber(n: number, lang: SummaryLang): string {
  return new Intl.NumberFormat(locale(lang), { maximumFractionDigits: 2 }).format(n);
}

/** Whole amounts without decimals, others with two: "4,210 €", "25,757.60 €". */
export function formatMoney(n: number, lang: SummaryLang, currency = 'EUR'): string {
  const digits = Number.isInteger(n) ? 0 : 2;
  const text = new Intl.NumberFormat(locale(lang), { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(n);
  return `${text} ${currency === 'EUR' ? '€' : currency}`;
}

type Rec = Record<string, unknown>;
const str = (v: unknown): string | undefined =>
  typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' ? String(v) : undefined;

/** One short phrase for an added or removed record: the fields a reader would name first. */
function describeRecord(r: Rec, lang: SummaryLang): string {
  const parts: string[] = [];
  const name =
    str(r.name) ?? str(r.title) ?? str(r.domain) ?? str(r.case_number) ?? str(r.cadastral_code) ?? str(r.ruling_number) ?? str(r.number);
  if (name) parts.push(name);
  if (str(r.type) && !str(r.title)) parts.push(String(r.type).replace(/_/g, ' '));
  if (str(r.category)) parts.push(String(r.category));
  if (isJsonObject(r.creditor) && str(r.creditor.name))
    parts.push(`${lang === 'et' ? 'sissenõudja' : 'creditor'} ${String(r.creditor.name)}`);
  if (typeof r.year === 'number') parts.push(`${r.year}`);
  const amount = typeof r.amount === 'number' ? r.amount : typeof r.revenue === 'number' ? r.revenue : undefined;
  if (amount !== undefined) parts.push(formatMoney(amount, lang));
  if (str(r.due_on)) parts.push(`${lang === 'et' ? 'tähtaeg' : 'due'} ${String(r.due_on)}`);
  return parts.join(', ');
}

function formatValue(v: unknown, format: ValueFormat, lang: SummaryLang, details: Rec): string {
  if (v === null || v === undefined || (Array.isArray(v) && v.length === 0))
    return format === 'money' ? formatMoney(0, lang, str(details.currency)) : words[lang].none;
  if (typeof v === 'number') {
    if (format === 'money') return formatMoney(v, lang, str(details.currency));
    if (format === 'percent') return `${formatNumber(v, lang)} %`;
    return formatNumber(v, lang);
  }
  if (typeof v === 'string') return format === 'status' ? (companyStatusWord(v, lang) ?? v) : v;
  if (Array.isArray(v)) return v.map((x) => (isJsonObject(x) ? describeRecord(x, lang) : String(x))).join(', ');
  if (isJsonObject(v)) return describeRecord(v, lang);
  return String(v);
}

function humanKind(kind: string): string {
  const s = kind.replace(/[_.]+/g, ' ').trim();
  return s ? s[0]!.toUpperCase() + s.slice(1) : 'Change';
}

export interface ChangeEventLike {
  data: {
    company: { registry_code: string; name: string };
    lists?: { id: string; name: string; external_ref?: string | null }[];
    kind: string;
    /** bad, good or neutral for the company: says whether a rating rose or fell. */
    tone?: string;
    details?: Rec;
  };
}

function companyRef(c: { registry_code: string; name: string }): string {
  return `${c.name} (${c.registry_code})`;
}

function listsSuffix(lists: ChangeEventLike['data']['lists'], lang: SummaryLang): string {
  if (!lists?.length) return '';
  const w = words[lang];
  const named = lists.map((l) => (l.external_ref ? `${l.name} (${w.ref} ${l.external_ref})` : l.name));
  return ` — ${lists.length === 1 ? w.list : w.lists}: ${named.join(', ')}`;
}

export interface ChangeSummaryOptions {
  /** Name the company in the sentence (default true); false where a heading already names it (the digest). */
  company?: boolean;
  /** Name the lists at the end (default true). */
  lists?: boolean;
}

const capitalise = (s: string) => (s ? s[0]!.toUpperCase() + s.slice(1) : s);

/** The label of a change kind ("Tax debt", "maksuvõlg"); an unknown kind in plain words. */
export function changeKindLabel(kind: string, lang: SummaryLang): string {
  const text = kindTexts[kind];
  return text ? (lang === 'et' ? text.et : text.en) : humanKind(kind);
}

/** e.g. "Tax debt of Näidis Ehitus OÜ (12345678) rose from 0 € to 4,210 € — list: Key clients (ref CRM-991)". */
export function changeSummary(event: ChangeEventLike, lang: SummaryLang, opts: ChangeSummaryOptions = {}): string {
  const { company, kind, lists } = event.data;
  const details: Rec = isJsonObject(event.data.details) ? event.data.details : {};
  const text = kindTexts[kind];
  const format: ValueFormat = text?.format ?? 'text';
  const w = words[lang];
  const named = opts.company !== false;
  const co = companyRef(company);
  const label = changeKindLabel(kind, lang);
  // Estonian puts the company first; without it the label starts the sentence.
  const etHead = named ? `${co} ${label}` : capitalise(label);
  const of = named ? ` of ${co}` : '';
  const { old: oldV, new: newV } = details;
  const isRecordChange =
    (isJsonObject(newV) && (oldV === null || oldV === undefined)) || (isJsonObject(oldV) && (newV === null || newV === undefined));

  const verbOf = (v: string) => (lang === 'et' && text?.etPlural ? (etPluralVerbs[v] ?? v) : v);

  let sentence: string;
  if (isRecordChange) {
    const record = (isJsonObject(newV) ? newV : oldV) as Rec;
    const desc = describeRecord(record, lang);
    const prep = text?.prep ?? 'for';
    if (lang === 'et') sentence = named ? `${co}: ${label}${desc ? ` — ${desc}` : ''}` : `${capitalise(label)}${desc ? ` — ${desc}` : ''}`;
    else sentence = named ? `${label} ${prep ? `${prep} ` : ''}${co}${desc ? `: ${desc}` : ''}` : `${label}${desc ? `: ${desc}` : ''}`;
  } else if (oldV === undefined && newV === undefined) {
    sentence = lang === 'et' ? `${named ? `${co}: ${label}` : capitalise(label)} ${verbOf(w.changed)}` : `${label}${of} ${w.changed}`;
  } else if (format === 'ended') {
    const was = formatValue(oldV, 'text', lang, details);
    sentence = lang === 'et' ? `${etHead} ${verbOf(w.ended)}: ${was}` : `${label}${of} ${w.ended}: ${was}`;
  } else {
    const party = isJsonObject(details.party) ? str(details.party.name) : undefined;
    const tone = event.data.tone;
    const verb = verbOf(
      format === 'rating'
        ? tone === 'good'
          ? w.rose
          : tone === 'bad'
            ? w.fell
            : w.changed
        : typeof oldV === 'number' && typeof newV === 'number'
          ? newV > oldV
            ? w.rose
            : newV < oldV
              ? w.fell
              : w.changed
          : (oldV === null || oldV === undefined) && typeof newV === 'number' && format !== 'text'
            ? w.rose
            : w.changed,
    );
    const from = formatValue(oldV, format, lang, details);
    const to = formatValue(newV, format, lang, details);
    const who = party ? ` (${party})` : '';
    sentence = lang === 'et' ? `${etHead}${who} ${verb}: ${from} → ${to}` : `${label}${who}${of} ${verb} from ${from} to ${to}`;
  }
  return opts.lists === false ? sentence : sentence + listsSuffix(lists, lang);
}

export interface MatchCompanyLike {
  registry_code: string;
  name: string;
  registered_on?: string;
  address?: string;
}
export interface MatchesEventLike {
  data: {
    search: { id: string; name: string };
    date?: string;
    part?: number;
    parts?: number;
    total?: number;
    companies?: MatchCompanyLike[];
  };
}

function partSuffix(d: MatchesEventLike['data'], lang: SummaryLang): string {
  if (!d.parts || d.parts <= 1 || !d.part) return '';
  return lang === 'et' ? ` (osa ${d.part}/${d.parts})` : ` (part ${d.part} of ${d.parts})`;
}

/** One sentence for a whole search.matches event: the count and the first few names. */
export function matchesSummary(event: MatchesEventLike, lang: SummaryLang, shown = 3): string {
  const d = event.data;
  const companies = d.companies ?? [];
  const n = companies.length;
  const names = companies.slice(0, shown).map(companyRef);
  const rest = n - names.length;
  const w = words[lang];
  const listed = names.join(', ') + (rest > 0 ? (lang === 'et' ? ` ja ${w.more} ${rest}` : ` and ${rest} ${w.more}`) : '');
  const head =
    lang === 'et'
      ? `Salvestatud otsingule „${d.search.name}“ vastab ${n === 1 ? '1 uus ettevõte' : `${n} uut ettevõtet`}`
      : `${n === 1 ? '1 new company matches' : `${n} new companies match`} the saved search "${d.search.name}"`;
  return `${head}${n ? `: ${listed}` : ''}${partSuffix(d, lang)}`;
}

/** One sentence per company when the node splits a search.matches event. */
export function matchCompanySummary(search: { name: string }, company: MatchCompanyLike, lang: SummaryLang): string {
  const extra = [
    company.address,
    company.registered_on ? `${lang === 'et' ? 'registreeritud' : 'registered'} ${company.registered_on}` : undefined,
  ]
    .filter(Boolean)
    .join(', ');
  return lang === 'et'
    ? `${companyRef(company)} vastab nüüd salvestatud otsingule „${search.name}“${extra ? ` — ${extra}` : ''}`
    : `${companyRef(company)} now matches the saved search "${search.name}"${extra ? ` — ${extra}` : ''}`;
}

export function testSummary(lang: SummaryLang): string {
  return lang === 'et' ? 'Company Data testsündmus: veebikonks töötab.' : 'Company Data test event: the webhook works.';
}
