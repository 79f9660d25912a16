import type { INodeProperties, INodePropertyOptions } from 'n8n-workflow';
import type { AnyOperation } from '@company-data/core/operation';
import { groups } from '@company-data/core/operation';
import { operationGroups } from '@company-data/core/operations';
import { choicesByParam, type ParamOption, type ParamSpec } from '@company-data/core/params';
import { titleCase } from './choices';
import { optionListProperty, resourceLocatorProperty } from './pickers';
import { simplifies } from '@company-data/core/simplify';
import { addFromItemsProperties, addsFromItems } from './add-companies';
import { hasResources, show, type At } from './display';
import type { Kind } from './schema-kind';
import { camel, fieldsOf, humanize, pagingOf } from './fields';
import type { NodeSpec } from './nodes';
import { mergeVersions, type NodeVersion } from './versions';

const byName = (a: { name: string }, b: { name: string }) => a.name.localeCompare(b.name);

function choiceOptions(name: string, kind: Kind, given?: readonly ParamOption[]): INodePropertyOptions[] {
  if (given?.length) return given.map((o) => ({ name: titleCase(o.label), value: o.value })).sort(byName);
  const values = kind.t === 'choice' ? kind.values : [];
  return values.map((v) => ({ name: typeof v === 'string' ? humanize(v) : String(v), value: v })).sort(byName);
}

/** The parameter's own labels, else the shared list for its name when that fits its values. */
function knownChoices(name: string, kind: Kind, own?: readonly ParamOption[]): readonly ParamOption[] | undefined {
  if (own?.length) return own;
  const shared = choicesByParam[name];
  if (!shared) return undefined;
  const values = kind.t === 'choice' ? kind.values : kind.t === 'array' && kind.of.t === 'choice' ? kind.of.values : undefined;
  // A parameter named alike with other values (a webhook delivery's status) keeps its own.
  if (values && !shared.every((o) => values.includes(o.value))) return undefined;
  return shared;
}

/** "Companies" → "Company", "Entries" → "Entry": the placeholder of a list's add button. */
const singular = (label: string) => label.replace(/ies$/, 'y').replace(/s$/, '');

/** Default of an optional choice inside Options: English for languages, else the first choice. */
function choiceDefault(name: string, options: INodePropertyOptions[]): string | number {
  if (name === 'lang') return 'en';
  return options[0]?.value as string | number;
}

/** n8n field for a value of the given kind; nested object fields get humanized labels. */
function propertyFor(
  name: string,
  label: string,
  description: string,
  kind: Kind,
  required: boolean,
  extra: { options?: readonly ParamOption[]; example?: unknown } = {},
): INodeProperties {
  const base = { displayName: label, name: camel(name), description };
  const given = knownChoices(name, kind, extra.options);
  if (given && (kind.t === 'string' || (kind.t === 'array' && kind.of.t === 'string'))) {
    // Free text in the table, but the values are known: a list to pick from (an expression can still give another).
    const options = choiceOptions(name, kind, given);
    if (kind.t === 'array') return { ...base, type: 'multiOptions', options, default: [] };
    return { ...base, type: 'options', options, default: options[0]!.value as string, ...(required ? { required: true } : {}) };
  }
  switch (kind.t) {
    case 'choice': {
      const options = choiceOptions(name, kind, given);
      return { ...base, type: 'options', options, default: choiceDefault(name, options), ...(required ? { required: true } : {}) };
    }
    case 'array': {
      if (kind.of.t === 'choice') return { ...base, type: 'multiOptions', options: choiceOptions(name, kind.of, given), default: [] };
      if (kind.of.t === 'object') {
        const values = Object.entries(kind.of.shape).map(([k, v]) =>
          propertyFor(k, nestedLabel(k), nestedDescription(k), v.kind, !v.optional),
        );
        return {
          ...base,
          type: 'fixedCollection',
          typeOptions: { multipleValues: true },
          placeholder: `Add ${singular(label)}`,
          default: {},
          options: [{ name: 'entries', displayName: label, values }],
        };
      }
      return { ...base, description: `${description}. Separate several with commas.`.replace('.. ', '. '), type: 'string', default: '' };
    }
    case 'object': {
      const options = Object.entries(kind.shape)
        .map(([k, v]) => propertyFor(k, nestedLabel(k), nestedDescription(k), v.kind, false))
        .sort((a, b) => a.displayName.localeCompare(b.displayName));
      return { ...base, type: 'collection', placeholder: 'Add Filter', default: {}, options };
    }
    case 'number': {
      if (required) return { ...base, type: 'number', default: typeof extra.example === 'number' ? extra.example : 0, required: true };
      // An optional number appears only when added, and then with a value the rule accepts.
      const bounds = {
        ...(kind.min !== undefined ? { minValue: kind.min } : {}),
        ...(kind.max !== undefined ? { maxValue: kind.max } : {}),
      };
      const fallback = Math.max(0, kind.min ?? 0);
      return {
        ...base,
        type: 'number',
        ...(Object.keys(bounds).length ? { typeOptions: bounds } : {}),
        default: typeof extra.example === 'number' ? extra.example : fallback,
      };
    }
    case 'boolean':
      return { ...base, type: 'boolean', default: false };
    default:
      return {
        ...base,
        type: 'string',
        default: '',
        ...(typeof extra.example === 'string' ? { placeholder: `e.g. ${extra.example}` } : {}),
        ...(required ? { required: true } : {}),
      };
  }
}

/** Descriptions of object members (saved-search filters, companies to add), which carry no label of their own. */
const nestedDescriptions: Record<string, string> = {
  registry_code: 'The 8-digit Estonian registry code',
  external_ref: 'Your own reference for this company, returned in every event',
  categories: 'Follow only these kinds of change. Empty: all.',
  activity: 'EMTAK activity code prefixes, e.g. 62 or 62011',
  county: 'Counties of the legal address',
  registered_within_days: 'Only companies registered within this many days',
  legal_form: 'Legal forms, e.g. OÜ, AS, MTÜ',
  status: 'Only companies with these statuses',
};
const nestedDescription = (k: string) => nestedDescriptions[k] ?? humanize(k);
const nestedLabels: Record<string, string> = { external_ref: 'External Reference' };
const nestedLabel = (k: string) => nestedLabels[k] ?? humanize(k);

/* ---- Whole node ---- */

export interface NodeOperation {
  resource: string;
  op: AnyOperation;
}

/** The operations a node offers, in table order, with the resource value each sits under. */
export function nodeOperations(spec: NodeSpec): NodeOperation[] {
  return spec.groups.flatMap((g) =>
    Object.values(operationGroups[g.group] as Record<string, AnyOperation>)
      .filter((op) => !(g.exclude ?? []).includes(op.name))
      .map((op) => ({ resource: g.resource ?? g.group, op })),
  );
}

const RETURN_ALL = 'Whether to return all results or only up to a given limit';

function pagingProperties(spec: NodeSpec, resource: string, op: AnyOperation): INodeProperties[] {
  const description = op.qCap ? `${RETURN_ALL}. A search by name returns at most ${op.qCap} results.` : RETURN_ALL;
  return [
    {
      displayName: 'Return All',
      name: 'returnAll',
      type: 'boolean',
      default: false,
      description,
      displayOptions: show(spec, resource, [op.name]),
    },
    {
      displayName: 'Limit',
      name: 'limit',
      type: 'number',
      typeOptions: { minValue: 1 },
      default: 50,
      description: 'Max number of results to return',
      displayOptions: show(spec, resource, [op.name], { returnAll: [false] }),
    },
  ];
}

/** When an answer an item already holds is too old. Version 1: days only, 0 meaning never (as the tooltip said). */
function lookUpAgainProperties(version: NodeVersion, at: At): INodeProperties[] {
  if (version === 1) {
    return [
      {
        displayName: 'Look Up Again After (Days)',
        name: 'lookUpAgainAfterDays',
        type: 'number',
        typeOptions: { minValue: 0 },
        default: 0,
        description: 'Look up items again once their answer (company_data_enriched_at) is older than this many days. 0: never.',
        displayOptions: at({ skipLookedUp: [true] }),
      },
    ];
  }
  return [
    {
      displayName: 'Look Up Again',
      name: 'lookUpAgain',
      type: 'options',
      options: [
        { name: 'Never', value: 'never', description: 'An answer, once there, is kept' },
        { name: 'When the Answer Is Older Than…', value: 'afterDays', description: 'Refresh answers older than a number of days' },
      ],
      default: 'never',
      description: 'Whether items that already hold an answer are looked up again after a while',
      displayOptions: at({ skipLookedUp: [true] }),
    },
    {
      displayName: 'Days',
      name: 'lookUpAgainAfterDays',
      type: 'number',
      typeOptions: { minValue: 1 },
      default: 30,
      description: 'Look up items again once their answer (company_data_enriched_at) is older than this many days',
      displayOptions: at({ skipLookedUp: [true], lookUpAgain: ['afterDays'] }),
    },
  ];
}

function lookupProperties(spec: NodeSpec, resource: string, op: AnyOperation, version: NodeVersion): INodeProperties[] {
  const at: At = (more = {}) => show(spec, resource, [op.name], more);
  return [
    {
      displayName: 'Look Up',
      name: 'querySource',
      type: 'options',
      options: [
        {
          name: 'A Field of Each Input Item',
          value: 'field',
          description: 'Read the query from a column or field of every incoming item, e.g. a sheet column',
        },
        { name: 'A Value or Expression', value: 'value', description: 'Type the query, or build it with an expression' },
      ],
      default: 'field',
      description: "Whether to read each item's registry code, VAT number or company name from a field, or to enter it",
      displayOptions: at(),
    },
    {
      displayName: 'Field Name',
      name: 'queryField',
      type: 'string',
      default: 'registry_code',
      required: true,
      placeholder: 'e.g. registry_code',
      description:
        'Name of the input field that holds the registry code, VAT number or company name. Use dots for nested fields, e.g. company.code.',
      displayOptions: at({ querySource: ['field'] }),
    },
    {
      displayName: 'Query',
      name: 'query',
      type: 'string',
      default: '',
      required: true,
      placeholder: 'e.g. 12417834, EE102090374 or Bolt',
      description: 'Registry code (8 digits), VAT number (EE + 9 digits) or company name. Identical queries are sent once.',
      displayOptions: at({ querySource: ['value'] }),
    },
    {
      displayName: 'Skip Items Already Looked Up',
      name: 'skipLookedUp',
      type: 'boolean',
      // On by default: a sheet read back after an earlier run would otherwise be billed again, row by row.
      default: true,
      description:
        "Whether to pass items through unchanged, without a request or a charge, when they already hold this lookup's answer (company_data_status) for the same query, e.g. sheet rows enriched by an earlier run. Items with an error, and items whose query changed, are looked up again.",
      displayOptions: at(),
    },
    ...lookUpAgainProperties(version, at),
    ...(version >= 3 ? [lookupSimplifyProperty(at)] : []),
  ];
}

/**
 * Version 3's Simplify for the Lookup: the best match as columns of their own, so each row of n8n's
 * table and of a sheet stays one line. Version 2 nests it in company_data_match (unchanged there).
 */
function lookupSimplifyProperty(at: At): INodeProperties {
  return {
    displayName: 'Simplify',
    name: 'simplify',
    type: 'boolean',
    default: true,
    description:
      'Whether to add the best match as flat columns (company_data_match_name, company_data_match_status, …), one line per item, instead of a nested company_data_match object',
    displayOptions: at(),
  };
}

/** In the bulk lookup's Options: a spending cap per execution. */
export const maxBilledQueriesOption: INodeProperties = {
  displayName: 'Max Billed Queries',
  name: 'maxBilledQueries',
  type: 'number',
  typeOptions: { minValue: 0 },
  default: 0,
  description:
    'Stop before sending anything when this execution would bill more unique queries than this (duplicates, invalid items and items already looked up are free). 0: no cap.',
};

/** All fields of a node for both versions, generated from the operation table. */
export function nodeProperties(spec: NodeSpec): INodeProperties[] {
  const versions = Array.from({ length: spec.newestVersion }, (_, i) => (i + 1) as NodeVersion);
  return mergeVersions(...versions.map((v) => propertiesFor(spec, v)));
}

/**
 * What an unset Language option means: from version 3 the node asks for English (src/n8n/actions/router.ts);
 * before, it sent no lang and the service answered in its default, Estonian.
 */
export const languageWhenUnset = (version: NodeVersion): string =>
  version >= 3 ? 'Without this option: English.' : "Without this option: Estonian, the service's default.";

/** The node's fields as one version shows them. */
export function propertiesFor(spec: NodeSpec, version: NodeVersion): INodeProperties[] {
  const ops = nodeOperations(spec);
  const props: INodeProperties[] = [];
  if (hasResources(spec)) {
    props.push({
      displayName: 'Resource',
      name: 'resource',
      type: 'options',
      noDataExpression: true,
      options: spec.groups
        .map((g) => ({ name: groups[g.group].label, value: g.resource ?? g.group, description: groups[g.group].description }))
        .sort(byName),
      default: spec.groups[0]!.resource ?? spec.groups[0]!.group,
    });
  }
  for (const g of spec.groups) {
    const resource = g.resource ?? g.group;
    const mine = ops.filter((o) => o.resource === resource);
    props.push({
      displayName: 'Operation',
      name: 'operation',
      type: 'options',
      noDataExpression: true,
      ...(hasResources(spec) ? { displayOptions: { show: { resource: [resource] } } } : {}),
      options: mine.map(({ op }) => ({ name: op.label, value: op.name, description: op.description, action: op.action })).sort(byName),
      default: mine.some((o) => o.op.name === spec.defaultOperation) ? spec.defaultOperation : mine[0]!.op.name,
    });
  }

  // Identical top-level fields (the registry code of most operations) become one field shown for all of them.
  const merged = new Map<string, { prop: INodeProperties; resource: string; operations: string[] }>();
  const perOp: INodeProperties[] = [];
  for (const { resource, op } of ops) {
    if (op.bulk) perOp.push(...lookupProperties(spec, resource, op, version));
    const options: INodeProperties[] = op.bulk ? [maxBilledQueriesOption] : [];
    for (const f of fieldsOf(op)) {
      const ps = (op.params as Record<string, ParamSpec>)[f.param]!;
      const required = f.place === 'top' && !f.optional;
      const description = f.param === 'lang' ? `${ps.description} ${languageWhenUnset(version)}` : ps.description;
      const plain = () => propertyFor(f.param, ps.label, description, f.kind, required, { options: ps.options, example: ps.example });
      const base = { displayName: ps.label, name: f.prop, description: ps.description, required };
      const prop =
        version < 2 || !f.picker
          ? plain()
          : f.place === 'top'
            ? resourceLocatorProperty(f.picker, base)
            : (optionListProperty(f.picker, base) ?? plain());
      if (f.place === 'options') {
        options.push(prop);
        continue;
      }
      if (version >= 2 && addsFromItems(op) && f.param === 'add') {
        // Version 2: the companies come from the input items unless the user enters them here.
        const at = (more: Record<string, unknown[]> = {}) => show(spec, resource, [op.name], more);
        perOp.push(...addFromItemsProperties(at), { ...prop, displayOptions: at({ companiesFrom: ['list'] }) });
        continue;
      }
      const key = `${resource}:${JSON.stringify(prop)}`;
      const seen = merged.get(key);
      if (seen) seen.operations.push(op.name);
      else merged.set(key, { prop, resource, operations: [op.name] });
    }
    if (pagingOf(op)) perOp.push(...pagingProperties(spec, resource, op));
    if (options.length) {
      perOp.push({
        displayName: 'Options',
        name: 'options',
        type: 'collection',
        placeholder: 'Add Option',
        default: {},
        displayOptions: show(spec, resource, [op.name]),
        options: options.sort((a, b) => a.displayName.localeCompare(b.displayName)),
      });
    }
  }
  for (const { prop, resource, operations } of merged.values()) props.push({ ...prop, displayOptions: show(spec, resource, operations) });
  if (version >= 2) props.push(...simplifyProperties(spec, ops));
  props.push(...perOp);
  return props;
}

/** Version 2's Simplify switch, one field per resource for every operation that has a flat form. */
function simplifyProperties(spec: NodeSpec, ops: NodeOperation[]): INodeProperties[] {
  const byResource = new Map<string, string[]>();
  for (const { resource, op } of ops) if (simplifies(op)) byResource.set(resource, [...(byResource.get(resource) ?? []), op.name]);
  return [...byResource].map(([resource, operations]) => ({
    displayName: 'Simplify',
    name: 'simplify',
    type: 'boolean',
    default: true,
    description: 'Whether to return a flat item of the main facts (one column each) instead of the full answer with nested details',
    displayOptions: show(spec, resource, operations),
  }));
}

/**
 * The canvas subtitle: the chosen operation's label ("Get Profile", "Monitoring: Add Companies"),
 * not its internal value. An n8n expression looks the label up in a table made from the operations.
 */
export function nodeSubtitle(spec: NodeSpec): string {
  const labels: Record<string, string> = {};
  const multi = hasResources(spec);
  for (const { resource, op } of nodeOperations(spec))
    labels[multi ? `${resource}:${op.name}` : op.name] = multi ? `${groups[op.group].label}: ${op.label}` : op.label;
  const key = multi ? '$parameter["resource"] + ":" + $parameter["operation"]' : '$parameter["operation"]';
  return `={{ (${JSON.stringify(labels)})[${key}] || ${key} }}`;
}
