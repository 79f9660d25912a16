import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { countyOptions, dateSchema, limitSchema, p, param, statusOptions, trimmedText, vatNumberSchema } from '../params';
import { text } from '../text-length';
import { companyProfileSchema, companySummarySchema, lookupResultSchema } from '../schemas/company';
import { obj } from '../schemas/common';
import { companyStatusCodeMessage, companyStatusCodeSchema } from '../vocabulary';

const list = (label: string, description: string, item: z.ZodType = text({ min: 1 })) =>
  param({ in: 'query', schema: z.array(item).optional(), label, description, optional: true });

export const search = defineOperation({
  group: 'companies',
  name: 'search',
  label: 'Search',
  action: 'Search companies',
  description: 'Find companies by name or registry code prefix, or list companies matching filters (newest first)',
  hint: 'Use to find one company from words of its name, or to list companies by status, legal form, activity, county or registration date. For many known codes, VAT numbers or exact names at once, the bulk lookup is cheaper in calls',
  method: 'GET',
  path: '/companies',
  params: {
    q: param({
      in: 'query',
      schema: trimmedText(1).optional(),
      label: 'Name or Code',
      description: 'Company name or part of it, or the first 3-8 digits of a registry code. At most 200 results.',
    }),
    status: param({
      in: 'query',
      schema: z.array(companyStatusCodeSchema(companyStatusCodeMessage)).optional(),
      label: 'Status',
      description: 'Only companies with these statuses',
      options: statusOptions,
      optional: true,
    }),
    legal_form: list('Legal Form', 'Legal form name or abbreviation, e.g. OÜ, AS, MTÜ, FIE, KÜ'),
    activity: list(
      'Activity Code',
      'EMTAK code prefix of a current activity, e.g. 62 or 62011',
      z.string().regex(/^\d{1,5}$/, 'must be 1 to 5 digits'),
    ),
    county: param({
      in: 'query',
      schema: z.array(text({ min: 1 })).optional(),
      label: 'County',
      description: 'County of the legal address, written as registered, e.g. Harju maakond',
      options: countyOptions,
      optional: true,
    }),
    vat_number: list('VAT Number', 'Current VAT number; lists every company holding it', vatNumberSchema),
    registered_from: param({
      in: 'query',
      schema: dateSchema.optional(),
      label: 'Registered From',
      description: 'Registered on or after this date (YYYY-MM-DD)',
      optional: true,
    }),
    registered_to: param({
      in: 'query',
      schema: dateSchema.optional(),
      label: 'Registered To',
      description: 'Registered on or before this date (YYYY-MM-DD)',
      optional: true,
    }),
    page: p.page,
    limit: p.limit,
    lang: p.lang,
  },
  response: z.array(companySummarySchema),
  paged: true,
  qCap: 200,
  retry: 'safe',
  source: 'shown',
});

/** Most queries one lookup request takes (spec: Limits, "Lookup queries 1-100 per request"). */
export const LOOKUP_MAX_QUERIES = 100;

export const lookup = defineOperation({
  group: 'companies',
  name: 'lookup',
  label: 'Lookup',
  action: 'Look up companies in bulk',
  description: 'Resolve up to 100 registry codes, VAT numbers or names at once. Billed per query.',
  hint: 'Use for a list of companies given by code, VAT number or exact name (a column of a sheet, a list in the question); a single company by code is a free profile read',
  method: 'POST',
  path: '/companies/lookup',
  params: {
    queries: param({
      in: 'body',
      schema: z
        .array(z.string({ message: 'each query must be text' }))
        .min(1, 'needs 1 to 100 queries')
        .max(LOOKUP_MAX_QUERIES, 'needs 1 to 100 queries'),
      label: 'Queries',
      description: 'Registry codes (8 digits), VAT numbers (EE + 9 digits) or company names, mixed',
    }),
    limit: param({
      in: 'body',
      schema: z.number().int('must be a whole number').min(1, 'must be from 1 to 10').max(10, 'must be from 1 to 10').optional(),
      label: 'Matches per Query',
      description: 'How many matches to return for each name or VAT query (1-10)',
      optional: true,
    }),
    lang: p.lang,
  },
  response: z.array(lookupResultSchema),
  meta: obj({ request_id: z.string(), queries: z.number().int(), matched: z.number().int() }),
  billing: 'Billed per query',
  bulk: { param: 'queries', max: LOOKUP_MAX_QUERIES },
  retry: 'unprocessed-only',
  source: 'shown',
});

export const byVat = defineOperation({
  group: 'companies',
  name: 'byVat',
  label: 'Get by VAT Number',
  action: 'Get a company by VAT number',
  description: 'Get the registry profile of the company holding a VAT number (or its last holder)',
  method: 'GET',
  path: '/companies/by-vat/{vat_number}',
  params: {
    vat_number: param({
      in: 'path',
      schema: vatNumberSchema,
      label: 'VAT Number',
      description: 'EE followed by 9 digits, e.g. EE102224658',
      example: 'EE102224658',
      idOf: 'vatNumber',
    }),
    include: p.include,
    lang: p.lang,
  },
  response: companyProfileSchema,
  meta: obj({ request_id: z.string(), vat_number: z.string(), vat_holders: z.number().int() }),
  retry: 'safe',
  source: 'shown',
});

export const get = defineOperation({
  group: 'companies',
  name: 'get',
  label: 'Get Profile',
  action: 'Get a company profile',
  description: 'Get the registry profile of a company, optionally with embedded sections',
  hint: 'The first read for any question about one company: status, legal form, address, activities, VAT number, contacts. include adds sections (credit_score, tax_debt, beneficial_owners, ...) in the same call',
  method: 'GET',
  path: '/companies/{registry_code}',
  params: { registry_code: p.registryCode, include: p.include, history: p.history, lang: p.lang },
  response: companyProfileSchema,
  retry: 'safe',
  source: 'shown',
});

export { limitSchema };
