import { z } from 'zod/v4';

/**
 * Every response schema is a loose object: fields the real service adds later pass through untouched.
 * The client never fails a call because a response does not match (see client.ts, onSchemaMismatch).
 */
export const obj = z.looseObject;

export const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date YYYY-MM-DD')
  .meta({ format: 'date' });
export const money = z.number();
export const codeLabel = obj({ code: z.string(), label: z.string() });
export { langSchema, type Lang } from '../vocabulary';

export const paginationSchema = obj({
  page: z.number().int(),
  limit: z.number().int(),
  total: z.number().int(),
  has_more: z.boolean(),
});
export type Pagination = z.infer<typeof paginationSchema>;

export const metaSchema = obj({
  request_id: z.string(),
  pagination: paginationSchema.optional(),
});
export type Meta = z.infer<typeof metaSchema> & Record<string, unknown>;

export function envelopeSchema<T extends z.ZodType>(data: T, meta: z.ZodType = metaSchema) {
  return obj({ success: z.literal(true), data, meta });
}

/**
 * Decision (docs/decisions/service-interface.md, "Records, risk and reference shapes"): an embedded list section on the company
 * profile is { items: first 25 rows, total: all rows }. The client also accepts a bare array.
 */
export function embeddedList<T extends z.ZodType>(row: T) {
  return obj({ items: z.array(row), total: z.number().int() });
}

/** Decision (docs/decisions/service-interface.md, "Envelope, errors and validation"): the one error body shape of the sandbox. */
export const errorBodySchema = obj({
  success: z.literal(false),
  error: obj({
    code: z.string(),
    message: z.string(),
    param: z.string().optional(),
    retry_after: z.number().optional(),
  }),
  meta: obj({ request_id: z.string() }),
});
export type ErrorBody = z.infer<typeof errorBodySchema>;

/** Rows of records whose fields the spec does not show: any object. */
export const openRecord = obj({});
