import { z } from 'zod/v4';
import { isoDate, obj } from './common';

export const unratedReasons = ['bankrupt', 'liquidation', 'deleted', 'not_covered'] as const;
export const scoreRules = ['in_default', 'inactive', 'thin_file', 'capital_breach'] as const;

const factorSchema = obj({
  factor: z.string(),
  label: z.string(),
  value: z.string(),
  group: z.string(),
  effect: z.number(),
});

/** Unrated answers carry rated=false and reason; the scored fields are then absent or null. */
export const creditScoreSchema = obj({
  rated: z.boolean(),
  reason: z.string().nullable().optional(),
  date: isoDate.nullable().optional(),
  score: z.number().nullable().optional(),
  rating: z.string().nullable().optional(),
  probability_of_default: z.number().nullable().optional(),
  rule: z.string().nullable().optional(),
  groups: z.array(obj({ group: z.string(), label: z.string(), score: z.number() })).optional(),
  risks: z.array(factorSchema).optional(),
  strengths: z.array(factorSchema).optional(),
});
export type CreditScore = z.infer<typeof creditScoreSchema>;

export const taxDebtSchema = obj({
  snapshot_date: isoDate.nullable(),
  total: z.number(),
  claims: z.array(
    obj({
      type: z.string(),
      label: z.string(),
      debt: z.number(),
      in_payment_schedule: z.number(),
      contested: z.number(),
    }),
  ),
  history: z.array(obj({ date: isoDate, debt: z.number(), in_payment_schedule: z.number(), contested: z.number() })),
});
export type TaxDebt = z.infer<typeof taxDebtSchema>;

export const taxDeclarationsSchema = obj({
  missing: z.array(obj({ type: z.string(), label: z.string(), due_on: isoDate })),
  late: z.array(obj({ type: z.string(), label: z.string(), due_on: isoDate, submitted_on: isoDate })),
});
export type TaxDeclarations = z.infer<typeof taxDeclarationsSchema>;

export const courtCaseSchema = obj({
  case_number: z.string(),
  date: isoDate,
  proceeding_type: z.string(),
  decision_type: z.string(),
  category: z.string(),
  judges: z.union([z.array(z.string()), z.string()]),
  ecli: z.string().nullable(),
  other_companies: z.number().int(),
});
export type CourtCase = z.infer<typeof courtCaseSchema>;

const creditorSchema = obj({ name: z.string(), registry_code: z.string().nullable().optional() });

export const paymentOrderSchema = obj({
  case_number: z.string(),
  date: isoDate,
  court_department: z.string(),
  creditor: creditorSchema,
  amounts: obj({
    total: z.number(),
    main_claim: z.number(),
    additional_claim: z.number(),
    state_fee: z.number(),
    procedure_cost: z.number(),
  }),
});
export type PaymentOrder = z.infer<typeof paymentOrderSchema>;

export const enforcementSchema = obj({
  date: isoDate,
  creditor: creditorSchema,
  bailiff: z.string(),
  amounts: obj({ total: z.number(), main_claim: z.number(), state_fee: z.number(), procedure_cost: z.number() }),
});
export type Enforcement = z.infer<typeof enforcementSchema>;
