import { z } from 'zod/v4';
import { codeLabel, isoDate, obj } from './common';
import { companyStatusSchema, legalFormSchema } from './company';

export const partyTypes = ['person', 'company', 'organisation'] as const;

export const partySchema = obj({
  type: z.string(),
  name: z.string(),
  registry_code: z.string().nullable(),
  person_id: z.number().int().nullable(),
  personal_code: z.string().nullable(),
  birth_date: isoDate.nullable(),
  url: z.string(),
});
export type Party = z.infer<typeof partySchema>;

export const shareSchema = obj({
  percent: z.number().nullable(),
  amount: z.number().nullable(),
  currency: z.string().nullable(),
  ownership: codeLabel.nullable(),
});

export const partyRoleSchema = obj({
  party: partySchema,
  role: codeLabel,
  from: isoDate.nullable(),
  until: isoDate.nullable(),
});
export type PartyRole = z.infer<typeof partyRoleSchema>;

export const shareholderSchema = partyRoleSchema.extend({ share: shareSchema.nullable() });
export type Shareholder = z.infer<typeof shareholderSchema>;

export const companyRefSchema = obj({ registry_code: z.string(), name: z.string(), url: z.string() });

export const holdingSchema = obj({
  company: companyRefSchema,
  role: codeLabel,
  share: shareSchema.nullable(),
  from: isoDate.nullable(),
  until: isoDate.nullable(),
});
export type Holding = z.infer<typeof holdingSchema>;

/** Fields a person search item and a person share (registry_code: organisations only). */
const personFields = {
  id: z.number().int(),
  type: z.string(),
  name: z.string(),
  personal_code: z.string().nullable(),
  registry_code: z.string().nullable().optional(),
  birth_date: isoDate.nullable(),
  url: z.string(),
};

export const personSearchItemSchema = obj({ ...personFields, active_roles: z.number().int() });
export type PersonSearchItem = z.infer<typeof personSearchItemSchema>;

export const relationTypes = ['representative', 'shareholder', 'beneficial_owner', 'other'] as const;

export const personRoleSchema = obj({
  company: obj({
    registry_code: z.string(),
    name: z.string(),
    legal_form: legalFormSchema,
    status: companyStatusSchema,
    url: z.string(),
  }),
  relation: z.string(),
  role: codeLabel,
  share: shareSchema.nullable(),
  from: isoDate.nullable(),
  until: isoDate.nullable(),
});

export const personSchema = obj({ ...personFields, roles_total: z.number().int(), roles: z.array(personRoleSchema) });
export type Person = z.infer<typeof personSchema>;
