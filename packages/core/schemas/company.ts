import { z } from 'zod/v4';
import { codeLabel, isoDate, obj } from './common';

export { companyStatusCodes } from '../vocabulary';
export const companyStatusSchema = obj({ code: z.string(), label: z.string() });

export const legalFormSchema = obj({ name: z.string(), label: z.string() });

export const addressSchema = obj({ full: z.string(), postal_code: z.string().nullable() });

export const companySummarySchema = obj({
  registry_code: z.string(),
  name: z.string(),
  legal_form: legalFormSchema,
  status: companyStatusSchema,
  registered_on: isoDate,
  deleted_on: isoDate.nullable(),
  vat_number: z.string().nullable(),
  address: addressSchema,
  url: z.string(),
  matched_previous_name: z.string().nullable().optional(),
});
export type CompanySummary = z.infer<typeof companySummarySchema>;

export const contactTypes = ['email', 'phone', 'mobile', 'website', 'other'] as const;

export const activitySchema = obj({
  code: z.string(),
  title: z.string(),
  emtak_version: z.number().int(),
  main: z.boolean(),
});

export const vatRegistrationSchema = obj({
  vat_number: z.string(),
  from: isoDate,
  until: isoDate.nullable(),
});

/**
 * Profile: summary fields plus the profile fields. Included sections appear as extra keys named with
 * underscores (credit_score, tax_debt, ...); they pass through as loose keys and are typed in
 * CompanyProfileWithSections (schemas/sections.ts).
 */
export const companyProfileSchema = companySummarySchema.omit({ matched_previous_name: true }).extend({
  share_capital: obj({ amount: z.number().nullable(), currency: z.string() }).nullable(),
  financial_year: obj({ start: z.string(), end: z.string() }).nullable(),
  accounting_required: z.boolean(),
  previous_names: z.array(z.string()),
  contacts: z.array(obj({ type: z.string(), value: z.string() })),
  activities: z.array(activitySchema),
  vat_registrations: z.array(vatRegistrationSchema),
  einvoice_providers: z.array(z.string()),
  consumer_blacklist_since: isoDate.nullable(),
  updated_at: z.string(),
});
export type CompanyProfile = z.infer<typeof companyProfileSchema>;

export const lookupResultSchema = obj({
  query: z.string(),
  type: z.enum(['registry_code', 'vat_number', 'name']),
  matches: z.array(companySummarySchema),
  skipped: z.string().optional().nullable(),
  vat_holders: z.number().int().optional().nullable(),
});
export type LookupResult = z.infer<typeof lookupResultSchema>;

export { codeLabel };
