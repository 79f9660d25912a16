import { z } from 'zod/v4';
import { companyStatusOptions, languageNames, langs, langSchema } from './vocabulary';

/** Re-exported: importers of the parameter rules find the language rule here too (defined in vocabulary.ts). */
export { langSchema };
import { isValidDate, normaliseVatNumber, personalCodeProblem, registryCodeProblem, vatNumberProblem } from './validation';
import { charLength, text } from './text-length';

export type ParamIn = 'path' | 'query' | 'body';

export interface ParamOption {
  value: string;
  label: string;
}

/**
 * One parameter of one operation. The zod schema is the rule (client validation, sandbox validation,
 * OpenAPI via z.toJSONSchema); label/description are the user-facing text (n8n properties, CLI help).
 */
export interface ParamSpec<S extends z.ZodType = z.ZodType> {
  in: ParamIn;
  schema: S;
  label: string;
  description: string;
  /** Labels for enum values, shown in n8n option lists. */
  options?: readonly ParamOption[];
  /** Shown under "Options" in n8n rather than as a top-level field. */
  optional?: boolean;
  /** Example value (docs, OpenAPI, placeholders). */
  example?: unknown;
  /** The kind of object this parameter names: n8n offers a searchable picker for it (src/n8n/descriptions/pickers.ts). */
  picker?: PickerKey;
  /** The kind of object an identifier without a picker names (OpenAPI links fill it from answers: packages/core/openapi-links.ts). */
  idOf?: Exclude<IdKind, PickerKey>;
}

/** Objects a user chooses by id: each gets one picker in n8n. */
export type PickerKey = 'company' | 'person' | 'monitoringList' | 'savedSearch' | 'failedDelivery';
/** Objects an operation's path names by id: the pickers' kinds, a VAT number and an annual report's year. */
export type IdKind = PickerKey | 'vatNumber' | 'annualReport';

export function param<S extends z.ZodType>(spec: ParamSpec<S>): ParamSpec<S> {
  return spec;
}

/* ---- Rule schemas, each with a message naming the rule in plain words ---- */

function ruleString(problem: (v: string) => string | null) {
  return z.string().superRefine((v, ctx) => {
    const p = problem(v);
    if (p) ctx.addIssue({ code: 'custom', message: p });
  });
}

export const registryCodeSchema = ruleString(registryCodeProblem).meta({
  pattern: '^[1789]\\d{7}$',
  description:
    '8 digits starting with 1, 7, 8 or 9; the last is a check digit (weights 1-7 on the first 7 digits, modulo 11; when that gives 10, weights 3-9; 10 again means 0). A wrong check digit is refused with 400.',
});
/** Accepts EE123456789, "ee 123456789" or 123456789; sends EE + 9 digits. */
export const vatNumberSchema = ruleString(vatNumberProblem)
  // The form as normaliseVatNumber reads it; the check digit is beyond a pattern, so the description states it.
  .meta({
    pattern: '^\\s*(?:[Ee][Ee]\\s?)?\\d{9}\\s*$',
    description:
      'EE and 9 digits (EE may be left out or lower case, one space may follow it, spaces around are ignored); the last digit is a check digit (weights 3, 7, 1 repeated, sum divisible by 10), refused with 400 when wrong.',
  })
  .transform((v) => normaliseVatNumber(v)!);
export const personalCodeSchema = ruleString(personalCodeProblem).meta({
  pattern: '^[1-6]\\d{10}$',
  description: '11 digits: century and sex (1-6), birth date YYMMDD, serial, check digit; a wrong check digit or date is refused with 400.',
});
/**
 * Text whose spaces around do not count: trimmed, then at least `min` characters (a maximum applies to the
 * text as sent). Characters are code points (text-length.ts). z.toJSONSchema states minLength of the untrimmed
 * text, so a pattern states the rule on what is left after trimming (JavaScript's trim removes exactly what \s
 * matches; JSON Schema's patterns, like its lengths, read code points).
 */
export function trimmedText(min: number, max?: number) {
  const pattern = min <= 1 ? '\\S' : `^\\s*\\S[\\s\\S]{${min - 2},}\\S\\s*$`;
  return z.string().check(charLength({ max })).trim().check(charLength({ min })).meta({ pattern });
}
/* The webhook address as one pattern, so the document states all of the rule a fuzzer can meet. Hosts are
 * ASCII names (internationalised ones in their xn-- form) whose last label starts with a letter (a number
 * there would make the WHATWG parser read an IPv4 address), or dotted IPv4 without leading zeros; no user
 * name or password (GET /webhook shows the address, so it must not carry a secret); no spaces. */
const octet = '(?:25[0-5]|2[0-4]\\d|1\\d\\d|[1-9]?\\d)';
const label = '[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?';
const port = '(?::(?:6553[0-5]|655[0-2]\\d|65[0-4]\\d\\d|6[0-4]\\d{3}|[1-5]\\d{4}|[1-9]\\d{0,3}|0))?';
// Path, query and fragment in the characters RFC 3986 allows (the document's format: uri), others percent-encoded.
const pchar = "(?:[A-Za-z0-9\\-._~!$&'()*+,;=:@]|%[0-9A-Fa-f]{2})";
const rest = `(?:/${pchar}*)*(?:\\?(?:${pchar}|[/?])*)?(?:#(?:${pchar}|[/?])*)?`;
const ci = (word: string) => [...word].map((c) => `[${c.toUpperCase()}${c}]`).join('');
export const webhookUrlPattern =
  `^(?:${ci('https')}://(?:(?:${label}\\.)*[A-Za-z](?:[A-Za-z0-9-]*[A-Za-z0-9])?|${octet}(?:\\.${octet}){3})` +
  `|${ci('http')}://(?:127(?:\\.${octet}){3}|${ci('localhost')}|\\[::1\\]))${port}${rest}$`;
export const webhookUrlSchema = z
  .string()
  .regex(
    new RegExp(webhookUrlPattern),
    'must be an https:// address: a host name or IPv4 address, an optional port and path (spaces and other characters outside RFC 3986 percent-encoded), no user name or password (http:// only to 127.0.0.1, localhost or [::1])',
  )
  // What the pattern cannot say: an xn-- label must be valid punycode.
  .url('must be a web address');
export const dateSchema = z.string().refine(isValidDate, { message: 'must be a real date written YYYY-MM-DD' }).meta({ format: 'date' });
export const pageSchema = z.number().int('must be a whole number').min(1, 'must be 1 or more');
export const limitSchema = z.number().int('must be a whole number').min(1, 'must be from 1 to 100').max(100, 'must be from 1 to 100');

export const includeSections = [
  'representatives',
  'shareholders',
  'beneficial_owners',
  'other_parties',
  'holdings',
  'financials',
  'annual_reports',
  'quarterly_taxes',
  'tax_debt',
  'tax_declarations',
  'credit_score',
  'court_cases',
  'payment_orders',
  'enforcements',
  'rulings',
  'announcements',
  'consumer_disputes',
  'properties',
  'domains',
  'permits',
  'state_payments',
] as const;
export type IncludeSection = (typeof includeSections)[number];

/** Section names as users read them; the Assets operations use the same words for the same records. */
const sectionLabels: Record<IncludeSection, string> = {
  representatives: 'Representatives',
  shareholders: 'Shareholders',
  beneficial_owners: 'Beneficial Owners',
  other_parties: 'Other Parties',
  holdings: 'Holdings',
  financials: 'Financials',
  annual_reports: 'Annual Reports',
  quarterly_taxes: 'Quarterly Taxes',
  tax_debt: 'Tax Debt',
  tax_declarations: 'Tax Declarations',
  credit_score: 'Credit Score',
  court_cases: 'Court Cases',
  payment_orders: 'Payment Orders',
  enforcements: 'Enforcements',
  rulings: 'Rulings',
  announcements: 'Official Notices',
  consumer_disputes: 'Consumer Disputes',
  properties: 'Real Estate',
  domains: 'Domains',
  permits: 'Permits',
  state_payments: 'State Payments',
};

/**
 * Counties as registered (../shared/reference/estonian-registry.md). The service takes free text, but a
 * typo such as "Harjumaa" would match nothing without a word of warning, so tools offer this list.
 */
export const countyOptions: readonly ParamOption[] = [
  'Harju',
  'Hiiu',
  'Ida-Viru',
  'Jõgeva',
  'Järva',
  'Lääne',
  'Lääne-Viru',
  'Põlva',
  'Pärnu',
  'Rapla',
  'Saare',
  'Tartu',
  'Valga',
  'Viljandi',
  'Võru',
].map((c) => ({ value: `${c} maakond`, label: c }));

/* ---- Shared parameters ---- */

export const p = {
  registryCode: param({
    in: 'path',
    schema: registryCodeSchema,
    label: 'Registry Code',
    description: 'The 8-digit Estonian registry code, for example 13545698',
    example: '13545698',
    picker: 'company',
  }),
  lang: param({
    in: 'query',
    schema: langSchema.optional(),
    label: 'Language',
    description: 'Language of labels and code descriptions. Names and free text stay as registered.',
    options: langs.map((value) => ({ value, label: languageNames[value] })),
    optional: true,
  }),
  page: param({
    in: 'query',
    schema: pageSchema.optional(),
    label: 'Page',
    description: 'Page number, from 1',
    optional: true,
  }),
  limit: param({
    in: 'query',
    schema: limitSchema.optional(),
    label: 'Limit',
    description: 'Max number of rows per page (1-100)',
    optional: true,
  }),
  history: param({
    in: 'query',
    schema: z.boolean().optional(),
    label: 'Include Ended Relations',
    description: 'Whether to also return relations that have ended (history). Off: only current ones.',
    optional: true,
  }),
  q: param({
    in: 'query',
    schema: text({ min: 1 }).optional(),
    label: 'Filter Text',
    description: 'Keep only rows whose names, numbers or roles contain this text',
    optional: true,
  }),
  include: param({
    in: 'query',
    schema: z
      .array(z.enum([...includeSections, 'all'], { message: `must be one of: ${[...includeSections, 'all'].join(', ')}` }))
      .optional(),
    label: 'Include Sections',
    description: 'Extra sections to embed in the profile. Lists embed their first 25 rows and the total.',
    options: [{ value: 'all', label: 'All Sections' }, ...includeSections.map((s) => ({ value: s, label: sectionLabels[s] }))],
    optional: true,
  }),
} as const;

export const statusOptions: readonly ParamOption[] = companyStatusOptions;

/**
 * Choices known by parameter name wherever the parameter appears, also inside an object such as
 * saved-search filters, which carries no options of its own.
 */
export const choicesByParam: Readonly<Record<string, readonly ParamOption[]>> = {
  county: countyOptions,
  status: statusOptions,
};

/** The paged-list parameters shared by every people and risk list. */
export const pagedListParams = { page: p.page, limit: p.limit, lang: p.lang } as const;
