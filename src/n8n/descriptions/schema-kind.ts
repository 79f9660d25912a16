import type { z } from 'zod/v4';

/** The shape of a parameter as far as an n8n field needs it, read from its zod rule. */
export type Kind =
  | { t: 'string' }
  | { t: 'number'; min?: number; max?: number }
  | { t: 'boolean' }
  | { t: 'choice'; values: Array<string | number> }
  | { t: 'array'; of: Kind }
  | { t: 'object'; shape: Record<string, { kind: Kind; optional: boolean }> }
  | { t: 'unknown' };

interface Def {
  type: string;
  innerType?: z.ZodType;
  in?: z.ZodType;
  element?: z.ZodType;
  entries?: Record<string, string | number>;
  options?: z.ZodType[];
  values?: unknown[];
  shape?: Record<string, z.ZodType>;
}

const defOf = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

interface NumberBag {
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
}

/** Bounds a user can meet; zod also records the safe-integer range of .int(), which is no rule of ours. */
function numberKind(s: z.ZodType): Kind {
  const bag = (s as unknown as { _zod: { bag?: NumberBag } })._zod.bag ?? {};
  const sane = (n: number | undefined) => (n !== undefined && Math.abs(n) < 1e9 ? n : undefined);
  const min = sane(bag.exclusiveMinimum !== undefined ? bag.exclusiveMinimum + 1 : bag.minimum);
  const max = sane(bag.maximum);
  return { t: 'number', ...(min !== undefined ? { min } : {}), ...(max !== undefined ? { max } : {}) };
}

/** Unwraps optional/nullable/default and transforms (a transform's input is what the user types). */
export function kindOf(schema: z.ZodType): { kind: Kind; optional: boolean } {
  let s = schema;
  let optional = false;
  for (;;) {
    const d = defOf(s);
    if (d.type === 'optional' || d.type === 'nullable' || d.type === 'default') {
      optional = true;
      s = d.innerType!;
    } else if (d.type === 'pipe') s = d.in!;
    else break;
  }
  const d = defOf(s);
  switch (d.type) {
    case 'string':
      return { kind: { t: 'string' }, optional };
    case 'number':
      return { kind: numberKind(s), optional };
    case 'boolean':
      return { kind: { t: 'boolean' }, optional };
    case 'enum':
      return { kind: { t: 'choice', values: Object.values(d.entries ?? {}) }, optional };
    case 'literal':
      return { kind: { t: 'choice', values: (d.values ?? []) as Array<string | number> }, optional };
    case 'union': {
      const parts = (d.options ?? []).map((o) => kindOf(o).kind);
      if (parts.length && parts.every((k) => k.t === 'choice')) {
        return { kind: { t: 'choice', values: parts.flatMap((k) => (k as { values: Array<string | number> }).values) }, optional };
      }
      return { kind: { t: 'unknown' }, optional };
    }
    case 'array':
      return { kind: { t: 'array', of: kindOf(d.element!).kind }, optional };
    case 'object': {
      const shape: Record<string, { kind: Kind; optional: boolean }> = {};
      for (const [k, v] of Object.entries(d.shape ?? {})) shape[k] = kindOf(v);
      return { kind: { t: 'object', shape }, optional };
    }
    default:
      return { kind: { t: 'unknown' }, optional };
  }
}
