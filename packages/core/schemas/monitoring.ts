import { z } from 'zod/v4';
import { obj } from './common';

/* Record shapes the spec leaves "not shown": decisions in docs/decisions/service-interface.md, "Monitoring, saved searches, webhook: paths decided". */

export const monitoringListSchema = obj({
  id: z.string(),
  name: z.string(),
  categories: z.array(z.string()).optional(),
  companies: z.number().int().optional(),
  created_at: z.string().optional(),
});
export type MonitoringList = z.infer<typeof monitoringListSchema>;

export const listCompanySchema = obj({
  registry_code: z.string(),
  name: z.string().nullable().optional(),
  external_ref: z.string().nullable().optional(),
  categories: z.array(z.string()).nullable().optional(),
  added_at: z.string().optional(),
});
export type ListCompany = z.infer<typeof listCompanySchema>;

export const listCompaniesChangeSchema = obj({
  list_id: z.string().optional(),
  added: z.number().int().optional(),
  updated: z.number().int().optional(),
  removed: z.number().int().optional(),
  total: z.number().int().optional(),
  invalid: z.array(obj({ registry_code: z.string(), reason: z.string() })).optional(),
});

export const savedSearchSchema = obj({
  id: z.string(),
  name: z.string(),
  filters: obj({}),
  created_at: z.string().optional(),
  baseline: z.number().int().optional(),
});
export type SavedSearch = z.infer<typeof savedSearchSchema>;

export const webhookConfigSchema = obj({
  url: z.string().nullable(),
  enabled: z.boolean(),
  signing_secret: z.string().optional(),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
});
export type WebhookConfig = z.infer<typeof webhookConfigSchema>;

export const deliverySchema = obj({
  id: z.string(),
  event_id: z.string(),
  status: z.string(),
  attempts: z.number().int().optional(),
  next_attempt_at: z.string().nullable().optional(),
  last_status_code: z.number().int().nullable().optional(),
  last_error: z.string().nullable().optional(),
  created_at: z.string().optional(),
});
export type Delivery = z.infer<typeof deliverySchema>;

export const classifierEntrySchema = obj({ code: z.string(), label: z.string() });
export const emtakCodeSchema = obj({
  code: z.string(),
  title: z.string(),
  version: z.number().int(),
  section: z.string().optional(),
  level: z.string().optional(),
});
export const usageSchema = obj({
  period: z.string().optional(),
  requests: z.number().int().optional(),
  billed_lookup_queries: z.number().int().optional(),
  monitored_companies: z.number().int().optional(),
  plan: z.string().optional(),
});
