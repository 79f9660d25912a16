import { z } from 'zod/v4';
import { isoDate, obj } from './common';

const n = z.number().nullable();

export const figureKeys = [
  'revenue',
  'net_profit',
  'current_assets',
  'non_current_assets',
  'total_assets',
  'current_liabilities',
  'non_current_liabilities',
  'total_liabilities',
  'share_capital',
  'retained_earnings',
  'equity',
] as const;
export const figuresSchema = obj(Object.fromEntries(figureKeys.map((k) => [k, n])) as Record<(typeof figureKeys)[number], typeof n>);

export const ratioKeys = [
  'ebitda',
  'current_ratio',
  'quick_ratio',
  'cash_ratio',
  'days_sales_outstanding',
  'asset_turnover',
  'debt_ratio',
  'operating_margin',
  'net_margin',
  'return_on_assets',
  'return_on_equity',
] as const;
export const ratiosSchema = obj(Object.fromEntries(ratioKeys.map((k) => [k, n])) as Record<(typeof ratioKeys)[number], typeof n>);

export const financialYearSchema = obj({
  year: z.number().int(),
  figures: figuresSchema,
  ratios: ratiosSchema.nullable(),
});

export const financialsSchema = obj({
  years: z.array(financialYearSchema),
  revenue_by_activity: z.array(obj({ code: z.string(), title: z.string(), values: z.record(z.string(), z.number().nullable()) })),
});
export type Financials = z.infer<typeof financialsSchema>;

export const annualReportStatuses = ['valid', 'superseded', 'overdue', 'not_yet_due'] as const;

export const annualReportListItemSchema = obj({
  year: z.number().int(),
  period_start: isoDate.nullable(),
  period_end: isoDate.nullable(),
  status: z.string(),
  submitted_on: isoDate.nullable(),
  due_on: isoDate.nullable(),
  employees: z.number().int().nullable(),
  has_statements: z.boolean(),
});
export type AnnualReportListItem = z.infer<typeof annualReportListItemSchema>;

export const statementSchema = obj({
  code: z.string(),
  name: z.string(),
  rows: z.array(obj({ name: z.string(), value: z.number().nullable(), total: z.boolean() })),
});

export const annualReportSchema = obj({
  year: z.number().int(),
  figures: figuresSchema,
  ratios: ratiosSchema.nullable(),
  statements: z.array(statementSchema),
});
export type AnnualReport = z.infer<typeof annualReportSchema>;

export const quarterlyTaxesItemSchema = obj({
  year: z.number().int(),
  quarter: z.number().int(),
  taxes: z.number().nullable(),
  labour_taxes: z.number().nullable(),
  turnover: z.number().nullable(),
  employees: z.number().int().nullable(),
});
export type QuarterlyTaxesItem = z.infer<typeof quarterlyTaxesItemSchema>;
