import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, param } from '../params';
import { annualReportListItemSchema, annualReportSchema, financialsSchema, quarterlyTaxesItemSchema } from '../schemas/financials';

const base = { group: 'financials', method: 'GET', retry: 'safe', source: 'shown' } as const;

export const financials = defineOperation({
  ...base,
  name: 'financials',
  label: 'Get Financials',
  action: 'Get financial figures of a company',
  description: 'Annual report figures and ratios by year, and revenue by activity',
  path: '/companies/{registry_code}/financials',
  params: { registry_code: p.registryCode, lang: p.lang },
  response: financialsSchema,
});

export const annualReports = defineOperation({
  ...base,
  name: 'annualReports',
  label: 'Get Annual Reports',
  action: 'Get annual reports of a company',
  description: 'All report periods, filed and missing, with their status',
  path: '/companies/{registry_code}/annual-reports',
  params: { registry_code: p.registryCode, lang: p.lang },
  response: z.array(annualReportListItemSchema),
});

export const annualReport = defineOperation({
  ...base,
  name: 'annualReport',
  label: 'Get Annual Report',
  action: 'Get one annual report of a company',
  description: 'Figures, ratios and statements (balance sheet, income statement, cash flow) of one year',
  path: '/companies/{registry_code}/annual-reports/{year}',
  params: {
    registry_code: p.registryCode,
    year: param({
      in: 'path',
      schema: z.number().int('must be a whole number').min(1990, 'must be 1990 or later').max(2100, 'must be 2100 or earlier'),
      label: 'Year',
      description: 'Financial year of the report, e.g. 2024',
      idOf: 'annualReport',
    }),
    lang: p.lang,
  },
  response: annualReportSchema,
});

export const quarterlyTaxes = defineOperation({
  ...base,
  name: 'quarterlyTaxes',
  label: 'Get Quarterly Taxes',
  action: 'Get quarterly taxes of a company',
  description: 'Taxes paid, labour taxes, taxable turnover and employees per quarter, newest first',
  path: '/companies/{registry_code}/quarterly-taxes',
  params: { registry_code: p.registryCode, lang: p.lang },
  response: z.array(quarterlyTaxesItemSchema),
});
