import { z } from 'zod/v4';

/**
 * A zod rule as JSON Schema (draft 2020-12), for documents other programs read: the OpenAPI
 * description and the MCP tools' input schemas. 'input' describes what a caller may send (before
 * transforms such as VAT normalisation), 'output' what comes back.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete out.$schema;
  return out;
}

/** Whether the rule accepts a missing value. */
export const isOptional = (schema: z.ZodType): boolean => schema.safeParse(undefined).success;
