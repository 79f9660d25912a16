import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, pagedListParams } from '../params';
import { rulingSchema } from '../schemas/records';
import {
  courtCaseSchema,
  creditScoreSchema,
  enforcementSchema,
  paymentOrderSchema,
  taxDebtSchema,
  taxDeclarationsSchema,
} from '../schemas/risk';

const base = { group: 'risk', method: 'GET', retry: 'safe' } as const;

const object = <R extends z.ZodType>(name: string, label: string, action: string, description: string, slug: string, response: R) =>
  defineOperation({
    ...base,
    source: 'shown',
    name,
    label,
    action,
    description,
    path: `/companies/{registry_code}/${slug}`,
    params: { registry_code: p.registryCode, lang: p.lang },
    response,
  });

const pagedList = <T extends z.ZodType>(
  name: string,
  label: string,
  action: string,
  description: string,
  slug: string,
  item: T,
  source: 'shown' | 'decided' = 'shown',
) =>
  defineOperation({
    ...base,
    source,
    name,
    label,
    action,
    description,
    path: `/companies/{registry_code}/${slug}`,
    params: { registry_code: p.registryCode, q: p.q, ...pagedListParams },
    response: z.array(item),
    paged: true,
  });

export const creditScore = object(
  'creditScore',
  'Get Credit Score',
  'Get the credit score of a company',
  'Score 0-100, rating AAA to D, probability of default, main risks and strengths',
  'credit-score',
  creditScoreSchema,
);
export const taxDebt = object(
  'taxDebt',
  'Get Tax Debt',
  'Get the tax debt of a company',
  'Current tax debt by claim and daily totals of the last three months',
  'tax-debt',
  taxDebtSchema,
);
export const taxDeclarations = object(
  'taxDeclarations',
  'Get Tax Declarations',
  'Get missing and late tax declarations',
  'Tax declarations that are missing or were filed late',
  'tax-declarations',
  taxDeclarationsSchema,
);
export const courtCases = pagedList(
  'courtCases',
  'Get Court Cases',
  'Get court cases of a company',
  'Court decisions naming the company, newest first',
  'court-cases',
  courtCaseSchema,
);
export const paymentOrders = pagedList(
  'paymentOrders',
  'Get Payment Orders',
  'Get payment orders against a company',
  'Expedited payment order procedures against the company',
  'payment-orders',
  paymentOrderSchema,
);
export const enforcements = pagedList(
  'enforcements',
  'Get Enforcement Proceedings',
  'Get enforcement proceedings of a company',
  'Bailiff proceedings against the company',
  'enforcements',
  enforcementSchema,
);
/** Parameters and response of rulings are not shown: decided like the other risk lists (docs/decisions/service-interface.md, "Records, risk and reference shapes"). */
export const rulings = pagedList(
  'rulings',
  'Get Rulings',
  'Get registry rulings of a company',
  "Rulings of the court's registration department on the company's entries",
  'rulings',
  rulingSchema,
  'decided',
);
