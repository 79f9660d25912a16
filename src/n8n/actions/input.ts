import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import type { AnyOperation } from '@company-data/core/operation';
import type { Kind } from '../descriptions/schema-kind';
import { pickedValue } from './picked-value';
import { camel, fieldsOf } from '../descriptions/fields';

const isBlank = (v: unknown) =>
  v === undefined || v === null || (typeof v === 'string' && v.trim() === '') || (Array.isArray(v) && v.length === 0);

/**
 * An n8n field value → the value the operation takes. Comma-separated text becomes a list; blanks
 * become "not set". Anything odd is passed on as is, so the operation's own rule names the problem.
 */
export function convert(kind: Kind, value: unknown): unknown {
  if (isBlank(value)) return undefined;
  switch (kind.t) {
    case 'string':
      return typeof value === 'string' ? value.trim() : typeof value === 'number' ? String(value) : value;
    case 'number':
      return typeof value === 'string' && value.trim() !== '' && !Number.isNaN(Number(value)) ? Number(value) : value;
    case 'array': {
      const list = Array.isArray(value) ? value : typeof value === 'string' ? value.split(',') : [value];
      const out = list.map((v) => convert(kind.of, v)).filter((v) => v !== undefined);
      return out.length ? out : undefined;
    }
    case 'object': {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
      const src = value as IDataObject;
      const out: Record<string, unknown> = {};
      for (const [k, member] of Object.entries(kind.shape)) {
        const v = convert(member.kind, src[camel(k)] ?? src[k]);
        if (v !== undefined) out[k] = v;
      }
      return out;
    }
    default:
      return value;
  }
}

/** fixedCollection values arrive as { entries: [...] }. */
function unwrapEntries(kind: Kind, value: unknown): unknown {
  if (kind.t === 'array' && kind.of.t === 'object' && value && typeof value === 'object' && !Array.isArray(value)) {
    return (value as { entries?: unknown }).entries ?? [];
  }
  return value;
}

/**
 * Reads the operation's parameters for one item from the node's fields. `skip`: parameters not read,
 * for fields hidden in the chosen mode (n8n refuses to read a hidden field).
 */
export function readInput(
  ctx: IExecuteFunctions,
  op: AnyOperation,
  itemIndex: number,
  skip: readonly string[] = [],
): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  let options: IDataObject | undefined;
  for (const f of fieldsOf(op)) {
    if (skip.includes(f.param)) continue;
    let raw: unknown;
    if (f.place === 'top') raw = ctx.getNodeParameter(f.prop, itemIndex, undefined);
    else {
      options ??= ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
      raw = options[f.prop];
    }
    // Version 2 picks the object (list, link or id); version 1 stored the id itself.
    if (f.picker) raw = pickedValue(f.picker, f.param, raw);
    const v = convert(f.kind, unwrapEntries(f.kind, raw));
    if (v !== undefined) input[f.param] = v;
  }
  return input;
}
