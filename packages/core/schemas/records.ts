import { z } from 'zod/v4';
import { isoDate, obj } from './common';

/*
 * The spec does not show the fields of these records. Our decision is recorded in
 * docs/decisions/service-interface.md, "Records, risk and reference shapes"; every field is optional so a different real shape
 * still parses, and unknown fields pass through.
 */
const s = z.string().nullable().optional();
const d = isoDate.nullable().optional();
const num = z.number().nullable().optional();

export const rulingSchema = obj({ ruling_number: s, date: d, type: s, summary: s, url: s });
export const announcementSchema = obj({ date: d, type: s, title: s, text: s, url: s });
export const consumerDisputeSchema = obj({ case_number: s, date: d, subject: s, decision: s, complied: z.boolean().nullable().optional() });
export const propertySchema = obj({
  registry_part: s,
  cadastral_code: s,
  type: s,
  address: s,
  area_m2: num,
  share: s,
  from: d,
  until: d,
});
export const domainSchema = obj({ domain: s, registered_on: d, expires_on: d });
export const permitSchema = obj({ number: s, type: s, title: s, issuer: s, issued_on: d, valid_until: d, status: s });
export const statePaymentSchema = obj({ date: d, payer: s, type: s, description: s, amount: num });

export type Ruling = z.infer<typeof rulingSchema>;
export type Announcement = z.infer<typeof announcementSchema>;
export type ConsumerDispute = z.infer<typeof consumerDisputeSchema>;
export type Property = z.infer<typeof propertySchema>;
export type Domain = z.infer<typeof domainSchema>;
export type Permit = z.infer<typeof permitSchema>;
export type StatePayment = z.infer<typeof statePaymentSchema>;
