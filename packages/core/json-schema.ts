import { z } from 'zod/v4';
import { isJsonObject } from './json';

/**
 * A zod rule as JSON Schema (draft 2020-12), for documents other programs read: the OpenAPI
 * description and the MCP tools' input schemas. 'input' describes what a caller may send (before
 * transforms such as VAT normalisation), 'output' what comes back.
 */
export function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Record<string, unknown> {
  const out = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as Record<string, unknown>;
  delete out.$schema;
  return openObjectsAsTrue(out) as Record<string, unknown>;
}

/**
 * zod writes an object that keeps unknown fields as `additionalProperties: {}`; `true` says the same and
 * schema linters (the MCP Inspector's --strict among them) do not flag it as a constraint that is empty.
 */
function openObjectsAsTrue(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(openObjectsAsTrue);
  if (!v || typeof v !== 'object') return v;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) {
    const empty = k === 'additionalProperties' && isJsonObject(x) && Object.keys(x).length === 0;
    out[k] = empty ? true : openObjectsAsTrue(x);
  }
  return out;
}

/** Whether the rule accepts a missing value. */
export const isOptional = (schema: z.ZodType): boolean => schema.safeParse(undefined).success;
