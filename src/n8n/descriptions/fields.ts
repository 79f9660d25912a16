import type { AnyOperation } from '@company-data/core/operation';
import type { ParamSpec, PickerKey } from '@company-data/core/params';
import { pagingOf, type Paging } from '@company-data/core/runner';
import { kindOf, type Kind } from './schema-kind';

/**
 * Operation parameters as n8n fields: their names, labels and where they sit. Read by the property
 * builder (./properties.ts), the input reader (../actions/input.ts) and the error mapping (../errors.ts).
 */

export const camel = (s: string) => s.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
export const humanize = (s: string) =>
  s
    .split('_')
    .map((w) => (w === 'id' ? 'ID' : w[0]!.toUpperCase() + w.slice(1)))
    .join(' ');

/** How a node reads a list (page/limit pages, an event cursor, or not at all): the runner's reading. */
export { pagingOf, type Paging };

/** One operation parameter as an n8n field. */
export interface Field {
  param: string;
  /** n8n parameter name; optional ones live inside the "options" collection. */
  prop: string;
  place: 'top' | 'options';
  kind: Kind;
  optional: boolean;
  label: string;
  /** Version 2 shows a picker for it: a resourceLocator at the top, a loaded option list among the Options. */
  picker?: PickerKey;
}

/** Parameters the node handles itself (paging, the lookup's query column) instead of plain fields. */
function handledByNode(op: AnyOperation, param: string): boolean {
  const paging = pagingOf(op);
  if (paging === 'pages' && (param === 'page' || param === 'limit')) return true;
  if (paging === 'cursor' && param === 'limit') return true;
  if (op.bulk?.param === param) return true;
  return false;
}

export function fieldsOf(op: AnyOperation): Field[] {
  return Object.entries(op.params as Record<string, ParamSpec>)
    .filter(([name]) => !handledByNode(op, name))
    .map(([name, spec]) => {
      const { kind, optional } = kindOf(spec.schema);
      const place = spec.optional ? 'options' : 'top';
      return {
        param: name,
        prop: camel(name),
        place,
        kind,
        optional,
        label: spec.label,
        ...(spec.picker ? { picker: spec.picker } : {}),
      } as Field;
    });
}
