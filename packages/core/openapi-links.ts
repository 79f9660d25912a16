import type { z } from 'zod/v4';
import { operationId, type AnyOperation } from './operation';
import type { IdKind, ParamSpec } from './params';
import { companyProfileSchema, companySummarySchema, lookupResultSchema } from './schemas/company';
import { annualReportListItemSchema } from './schemas/financials';
import { deliverySchema, listCompanySchema, monitoringListSchema, savedSearchSchema } from './schemas/monitoring';
import { partyRoleSchema, personSearchItemSchema, shareholderSchema } from './schemas/people';

/**
 * Where answers carry the id of each kind of object: a response object schema and the path to its field. Together with
 * the kind each path parameter names (ParamSpec.picker or .idOf), this is all the OpenAPI links are made
 * from: an operation whose answer is such an object, or a list of them, links to every operation taking
 * that kind of id in its path, so a stateful fuzzer (Schemathesis) reaches operations it cannot guess ids for.
 */
const idFields: readonly { kind: IdKind; schema: z.ZodType; field: string }[] = [
  { kind: 'company', schema: companySummarySchema, field: 'registry_code' },
  { kind: 'company', schema: companyProfileSchema, field: 'registry_code' },
  { kind: 'company', schema: listCompanySchema, field: 'registry_code' },
  { kind: 'vatNumber', schema: companySummarySchema, field: 'vat_number' },
  { kind: 'vatNumber', schema: companyProfileSchema, field: 'vat_number' },
  { kind: 'person', schema: personSearchItemSchema, field: 'id' },
  { kind: 'person', schema: partyRoleSchema, field: 'party/person_id' },
  { kind: 'person', schema: shareholderSchema, field: 'party/person_id' },
  { kind: 'monitoringList', schema: monitoringListSchema, field: 'id' },
  { kind: 'savedSearch', schema: savedSearchSchema, field: 'id' },
  { kind: 'failedDelivery', schema: deliverySchema, field: 'id' },
  { kind: 'annualReport', schema: annualReportListItemSchema, field: 'year' },
];

/**
 * Answers whose list items hold id-bearing objects one list further down: each bulk lookup result's
 * matches are company summaries (the lookup of a registry code is how a client finds a company it knows).
 */
const nestedLists: readonly { schema: z.ZodType; field: string; element: z.ZodType }[] = [
  { schema: lookupResultSchema, field: 'matches', element: companySummarySchema },
];

/**
 * Links a client follows that no id makes: the next step of a flow, an answer's value into another
 * operation's query, or a constant. Parameters are OpenAPI link values: a runtime expression or a constant.
 */
const flows: readonly { from: string; to: string; parameters?: Record<string, string>; description: string }[] = [
  { from: 'webhook.set', to: 'webhook.test', description: 'Send a test event to the address just set' },
  { from: 'webhook.set', to: 'webhook.get', description: 'Read the webhook settings back' },
  { from: 'webhook.get', to: 'webhook.test', description: 'Send a test event to the address set' },
  { from: 'webhook.get', to: 'webhook.deliveries', description: 'The deliveries to this address' },
  {
    from: 'monitoring.getList',
    to: 'monitoring.events',
    parameters: { list_id: '$request.path.list_id' },
    description: "The change events of this list's companies",
  },
  { from: 'companies.lookup', to: 'reference.usage', description: "The lookup queries billed this month, this lookup's included" },
  {
    from: 'reference.emtak',
    to: 'companies.search',
    parameters: { activity: '$response.body#/data/0/code' },
    description: 'Companies with this activity: activity from data.0.code of this answer',
  },
  {
    from: 'companies.get',
    to: 'reference.classifiers',
    parameters: { type: 'legal_forms' },
    description: 'The legal forms, with their labels in the language asked for',
  },
];

export interface OpenApiLink {
  operationId: string;
  parameters: Record<string, string>;
  description: string;
}

const kindOf = (spec: ParamSpec | undefined): IdKind | undefined => spec?.picker ?? spec?.idOf;

const arrayElement = (schema: z.ZodType): z.ZodType | undefined => {
  const def = (schema as unknown as { _zod: { def: { type: string; element?: z.ZodType } } })._zod.def;
  return def.type === 'array' ? def.element : undefined;
};

/**
 * JSON pointers into the answer body to one id of each kind the operation's answer carries. An operation
 * that takes a kind in its path answers about that very object, so it yields no new id of that kind
 * (following it would pass the request's id along).
 */
export function yieldedIds(op: AnyOperation): Map<IdKind, { pointer: string; nullable: boolean }> {
  const out = new Map<IdKind, { pointer: string; nullable: boolean }>();
  if (op.rawResponse) return out;
  const taken = new Set(
    Object.values(op.params)
      .filter((s) => s.in === 'path')
      .map(kindOf),
  );
  const element = arrayElement(op.response);
  for (const { kind, schema, field } of idFields) {
    if (taken.has(kind) || out.has(kind)) continue;
    const nullable = field
      .split('/')
      .reduce((s, key) => (s as z.ZodObject).shape[key]!, schema)
      .safeParse(null).success;
    if (op.response === schema) out.set(kind, { pointer: `/data/${field}`, nullable });
    else if (element === schema) out.set(kind, { pointer: `/data/0/${field}`, nullable });
    else {
      const nested = nestedLists.find((n) => n.schema === element && n.element === schema);
      if (nested) out.set(kind, { pointer: `/data/0/${nested.field}/0/${field}`, nullable });
    }
  }
  return out;
}

/**
 * The links of one operation's success answers: to each other operation whose path parameters are all
 * filled, at least one from this answer, the rest from this request's path parameters of the same name;
 * then the flows that start from it.
 */
export function linksOf(op: AnyOperation, targets: readonly AnyOperation[]): Record<string, OpenApiLink> {
  const ids = yieldedIds(op);
  const links: Record<string, OpenApiLink> = {};
  for (const target of ids.size ? targets : []) {
    if (target === op) continue;
    const pathParams = Object.entries(target.params).filter(([, s]) => s.in === 'path');
    const parameters: Record<string, string> = {};
    const fromAnswer: string[] = [];
    let nullable = false;
    for (const [name, spec] of pathParams) {
      const kind = kindOf(spec);
      const id = kind && ids.get(kind);
      if (id) {
        parameters[name] = `$response.body#${id.pointer}`;
        fromAnswer.push(`${name} from ${id.pointer.slice(1).replace(/\//g, '.')}`);
        nullable ||= id.nullable;
      } else if (op.params[name]?.in === 'path' && kindOf(op.params[name]) === kind) parameters[name] = `$request.path.${name}`;
      else break;
    }
    if (!fromAnswer.length || Object.keys(parameters).length !== pathParams.length) continue;
    const description = `${target.action}: ${fromAnswer.join(', ')} of this answer${nullable ? ' (when not null)' : ''}`;
    links[operationId(target)] = { operationId: operationId(target), parameters, description };
  }
  for (const flow of flows) {
    if (flow.from !== operationId(op) || !targets.some((t) => operationId(t) === flow.to)) continue;
    links[flow.to] = { operationId: flow.to, parameters: flow.parameters ?? {}, description: flow.description };
  }
  return links;
}
