import { z } from 'zod/v4';

/**
 * The service's closed word lists, each written once. Zod rules, option lists, labels and TypeScript
 * types are derived from these tables wherever they are needed (operations, n8n properties, event
 * summaries, the sandbox, the CLI), so a new word is added in one place.
 */

const orList = (words: readonly string[]) => `${words.slice(0, -1).join(', ')} or ${words[words.length - 1]}`;
const titleCase = (text: string) => text.replace(/(^|\s)(\p{Ll})/gu, (_, space: string, c: string) => space + c.toUpperCase());

/** Languages of labels and code descriptions (the `lang` parameter), with their names in English. */
export const languageNames = { et: 'Estonian', en: 'English', ru: 'Russian' } as const;
export type Lang = keyof typeof languageNames;
export const langs = Object.keys(languageNames) as [Lang, ...Lang[]];
export const langSchema = z.enum(langs, { message: `must be ${orList(langs)}` });

/** Languages the event summaries are written in (packages/core/event-summary.ts), English first. */
export const summaryLangs = ['en', 'et'] as const satisfies readonly Lang[];
export type SummaryLang = (typeof summaryLangs)[number];

/** Company statuses of the business register: code and the register's label in each language. */
export const companyStatuses = {
  R: { et: 'Registrisse kantud', en: 'Registered', ru: 'Зарегистрирован' },
  L: { et: 'Likvideerimisel', en: 'In liquidation', ru: 'В ликвидации' },
  N: { et: 'Pankrotis', en: 'Bankrupt', ru: 'Банкрот' },
  D: { et: 'Kustutatud', en: 'Deleted', ru: 'Удалён' },
} as const satisfies Record<string, Record<Lang, string>>;
export type CompanyStatusCode = keyof typeof companyStatuses;
export const companyStatusCodes = Object.keys(companyStatuses) as [CompanyStatusCode, ...CompanyStatusCode[]];
/** A status filter's rule; `message` keeps each operation's wording of the error. */
export const companyStatusCodeSchema = (message?: string) => z.enum(companyStatusCodes, message ? { message } : undefined);
export const companyStatusCodeMessage = `must be ${orList(companyStatusCodes)}`;
/** Option labels (title case, as n8n lists them): Registered, In Liquidation, Bankrupt, Deleted. */
export const companyStatusOptions: ReadonlyArray<{ value: CompanyStatusCode; label: string }> = companyStatusCodes.map((value) => ({
  value,
  label: titleCase(companyStatuses[value].en),
}));
/** The status inside a sentence ("in liquidation"), for the summaries' languages. */
export const companyStatusWord = (code: string, lang: SummaryLang): string | undefined =>
  Object.hasOwn(companyStatuses, code) ? companyStatuses[code as CompanyStatusCode][lang].toLocaleLowerCase(lang) : undefined;

/** States of a webhook delivery: queued, waiting for its next attempt, or settled for good. */
export const deliveryStatuses = ['pending', 'delivered', 'retry_scheduled', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];
export const deliveryStatusSchema = z.enum(deliveryStatuses);

/**
 * Classifier types served by GET /classifiers/{type} (decided; docs/decisions/service-interface.md, "Records, risk and reference shapes"): the path parameter's enum
 * in the OpenAPI document, the MCP tool's input schema and the n8n option list, and the sandbox's tables.
 */
export const classifierTypes = [
  'legal_forms',
  'company_statuses',
  'roles',
  'counties',
  'contact_types',
  'annual_report_statuses',
  'credit_ratings',
  'unrated_reasons',
  'score_rules',
  'tax_claim_types',
  'declaration_types',
  'monitoring_categories',
  'ownership_types',
  'relations',
] as const;
export type ClassifierType = (typeof classifierTypes)[number];
export const classifierTypeSchema = z.enum(classifierTypes, { message: `must be one of: ${classifierTypes.join(', ')}` });

/** Why the service skipped a lookup query without searching (its `skipped` field). */
export const skipReasons = ['query_too_short'] as const;
export type SkipReason = (typeof skipReasons)[number];
/** A name without a word of 3 or more characters: the service would not search it. */
export const QUERY_TOO_SHORT: SkipReason = 'query_too_short';
