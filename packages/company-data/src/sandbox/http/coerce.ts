import type { z } from 'zod/v4';

type Kind = 'string' | 'number' | 'boolean' | 'array' | 'other';

interface Def {
  type: string;
  innerType?: z.ZodType;
  element?: z.ZodType;
  in?: z.ZodType;
  options?: z.ZodType[];
  values?: unknown[];
}

const def = (s: z.ZodType) => (s as unknown as { _zod: { def: Def } })._zod.def;

/** What a query or path string must become before validation, read from the zod schema. */
export function kindOf(schema: z.ZodType): { kind: Kind; element?: Kind } {
  const d = def(schema);
  switch (d.type) {
    case 'optional':
    case 'nullable':
    case 'default':
      return kindOf(d.innerType!);
    case 'pipe':
      return kindOf(d.in!);
    case 'array':
      return { kind: 'array', element: kindOf(d.element!).kind };
    case 'number':
    case 'int':
      return { kind: 'number' };
    case 'boolean':
      return { kind: 'boolean' };
    case 'literal':
      return { kind: typeof d.values?.[0] === 'number' ? 'number' : 'string' };
    case 'union': {
      const kinds = new Set(d.options!.map((o) => kindOf(o).kind));
      return { kind: kinds.size === 1 ? [...kinds][0]! : 'other' };
    }
    default:
      return { kind: 'string' };
  }
}

function scalar(kind: Kind | undefined, raw: string): unknown {
  if (kind === 'number') return /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : raw;
  if (kind === 'boolean') {
    const t = raw.trim().toLowerCase();
    return t === 'true' || t === '1' ? true : t === 'false' || t === '0' ? false : raw;
  }
  return raw;
}

/** Query values: arrays comma-separated or repeated; numbers and booleans converted when they look right. */
export function coerce(schema: z.ZodType, values: string[]): unknown {
  const k = kindOf(schema);
  if (k.kind === 'array') {
    return values
      .flatMap((x) => x.split(','))
      .map((x) => x.trim())
      .filter((x) => x !== '')
      .map((x) => scalar(k.element, x));
  }
  return scalar(k.kind, values[values.length - 1]!);
}
