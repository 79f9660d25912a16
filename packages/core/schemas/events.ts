import { z } from 'zod/v4';
import { isoDate, obj } from './common';

export const monitoringCategories = ['registry', 'people', 'tax', 'court', 'announcements', 'reports', 'rating', 'assets'] as const;
export type MonitoringCategory = (typeof monitoringCategories)[number];
export const tones = ['bad', 'good', 'neutral'] as const;

export const monitoringChangeEventSchema = obj({
  id: z.string(),
  type: z.literal('monitoring.change'),
  created_at: z.string(),
  data: obj({
    company: obj({ registry_code: z.string(), name: z.string() }),
    lists: z.array(obj({ id: z.string(), name: z.string(), external_ref: z.string().nullable().optional() })),
    category: z.string(),
    kind: z.string(),
    tone: z.string(),
    details: obj({}),
    detected_at: z.string(),
  }),
});
export type MonitoringChangeEvent = z.infer<typeof monitoringChangeEventSchema>;

export const searchMatchCompanySchema = obj({
  registry_code: z.string(),
  name: z.string(),
  legal_form: z.string(),
  status: z.string(),
  registered_on: isoDate,
  address: z.string(),
  activity_code: z.string().nullable(),
  employees: z.number().nullable(),
  revenue: z.number().nullable(),
  tax_debt: z.number().nullable(),
  rating: z.string().nullable(),
});

export const searchMatchesEventSchema = obj({
  id: z.string(),
  type: z.literal('search.matches'),
  created_at: z.string(),
  data: obj({
    search: obj({ id: z.string(), name: z.string() }),
    date: isoDate,
    part: z.number().int(),
    parts: z.number().int(),
    total: z.number().int(),
    companies: z.array(searchMatchCompanySchema),
  }),
});
export type SearchMatchesEvent = z.infer<typeof searchMatchesEventSchema>;

/** Payload not shown in the spec; decision in docs/decisions/service-interface.md, "Monitoring, saved searches, webhook: paths decided". */
export const webhookTestEventSchema = obj({
  id: z.string(),
  type: z.literal('webhook.test'),
  created_at: z.string(),
  data: obj({ message: z.string().optional() }).optional(),
});
export type WebhookTestEvent = z.infer<typeof webhookTestEventSchema>;

export const webhookEventSchema = z.discriminatedUnion('type', [
  monitoringChangeEventSchema,
  searchMatchesEventSchema,
  webhookTestEventSchema,
]);
export type WebhookEvent = z.infer<typeof webhookEventSchema>;
export type WebhookEventType = WebhookEvent['type'];
