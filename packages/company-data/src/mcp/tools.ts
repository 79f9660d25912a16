/**
 * The MCP tools, generated from the operation table like the client, the n8n fields, the sandbox
 * routes and the OpenAPI document: one tool per operation (unless the table says `notATool`), its
 * input schema from the operation's zod rules, its description from the operation's texts plus what
 * an assistant needs to choose it (what comes back, paging, cost, plan, where an id comes from).
 * Adding an operation to the table adds its tool; nothing here names an operation but the id sources.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { jsonSchema, isOptional } from '@company-data/core/json-schema';
import type { AnyOperation } from '@company-data/core/operation';
import { operationGroups, operations } from '@company-data/core/operations';
import type { PickerKey } from '@company-data/core/params';
import { pagingOf } from '@company-data/core/runner';
import { simplifies } from '@company-data/core/simplify';

/** How a tool reads its operation: one answer, a numbered page, a cursor page, or the billed bulk lookup. */
export type ToolKind = 'single' | 'paged' | 'cursor' | 'lookup';

export interface CompanyDataTool {
  name: string;
  op: AnyOperation;
  kind: ToolKind;
  definition: Tool;
  /** Parameters that take text (or a list of texts): a whole number given for them is read as its digits. */
  textParams: ReadonlySet<string>;
}

/** Rows per page when the assistant does not say: enough to answer, few enough to read. */
export const DEFAULT_TOOL_PAGE_SIZE = 10;
/** Billed queries one lookup call may spend unless the assistant raises it. */
export const DEFAULT_MAX_BILLED_QUERIES = 25;
/** Queries one lookup call takes (sent 100 per request, identical ones once). */
export const MAX_LOOKUP_QUERIES = 1000;

/** Which list gives the ids a parameter takes: the same lists the n8n pickers offer. */
const idSources: Record<PickerKey, { op: AnyOperation; noun: string }> = {
  company: { op: operationGroups.companies.search, noun: '8-digit registry code' },
  person: { op: operationGroups.people.searchPersons, noun: 'person id' },
  monitoringList: { op: operationGroups.monitoring.lists, noun: 'monitoring list id' },
  savedSearch: { op: operationGroups.searches.list, noun: 'saved search id' },
  failedDelivery: { op: operationGroups.webhook.deliveries, noun: 'delivery id' },
};

const snake = (s: string) => s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
export const toolName = (op: Pick<AnyOperation, 'group' | 'name'>) => `${op.group}_${snake(op.name)}`;

/** The runner's reading of the operation (pagingOf), and the bulk lookup, which has its own engine. */
function kindOf(op: AnyOperation): ToolKind {
  if (op.bulk) return 'lookup';
  const paging = pagingOf(op);
  return paging === 'pages' ? 'paged' : paging === 'cursor' ? 'cursor' : 'single';
}
const sentence = (s: string) => (/[.!?]$/.test(s) ? s : `${s}.`);
const isRead = (op: AnyOperation) => op.method === 'GET';

function returnsText(op: AnyOperation, kind: ToolKind): string {
  if (kind === 'lookup') {
    return 'Returns one item per query with status (matched, no_match, vat_group, skipped, invalid, error) and the best match in match as flat company fields (registry_code, name, status, address, vat_number); full=true gives every match as the service sends it.';
  }
  if (!isRead(op)) return 'Returns the changed object as the service answers it.';
  const compact = simplifies(op)
    ? "flat, compact fields by default; full=true gives the service's whole object"
    : "the service's fields, empty ones left out by default; full=true keeps them";
  if (kind === 'paged') {
    return `Returns one page of rows in items (${compact}), with total, more_available and next_page: when more_available is true, call again with page=next_page. Default ${DEFAULT_TOOL_PAGE_SIZE} rows a page, limit up to 100.`;
  }
  if (kind === 'cursor')
    return `Returns the events in items (${compact}), oldest first, with next_after: when more_available is true, call again with after=next_after.`;
  return `Returns items (${compact}).`;
}

function idText(op: AnyOperation): string[] {
  const out: string[] = [];
  for (const [name, spec] of Object.entries(op.params)) {
    if (!spec.picker) continue;
    const source = idSources[spec.picker];
    if (source.op === op) continue;
    out.push(
      `${name} is a ${source.noun}: when you only have a name, find it with ${toolName(source.op)}${spec.picker === 'company' ? ' or companies_lookup' : ''}.`,
    );
  }
  return out;
}

function describe(op: AnyOperation, kind: ToolKind): string {
  const parts = [sentence(op.description), returnsText(op, kind)];
  if (op.hint) parts.push(sentence(op.hint));
  parts.push(...idText(op));
  if (kind === 'lookup') {
    parts.push(
      `Cost: billed per distinct query sent; identical queries are sent once, invalid or too-short ones are never sent, and answers this server already got are reused free. A call that would bill more than max_billed_queries (default ${DEFAULT_MAX_BILLED_QUERIES}) sends nothing and says how many it would bill.`,
    );
  } else if (op.billing) parts.push(`Cost: ${sentence(op.billing)}`);
  if (op.plan === 'api') parts.push('Needs the API plan: on another plan it answers an error saying so.');
  if (!isRead(op)) parts.push(op.method === 'DELETE' ? 'Deletes data in the account: ask the user first.' : 'Changes data in the account.');
  return parts.join(' ');
}

function paramSchema(name: string, op: AnyOperation, kind: ToolKind): Record<string, unknown> {
  const spec = op.params[name]!;
  const s = jsonSchema(spec.schema, 'input');
  const labels = spec.options?.length
    ? ` Values: ${spec.options.map((o) => (o.label === o.value ? o.value : `${o.value} (${o.label})`)).join(', ')}.`
    : '';
  s.description = `${sentence(spec.description)}${labels}`;
  if (kind === 'paged' && name === 'limit') s.default = DEFAULT_TOOL_PAGE_SIZE;
  if (kind === 'lookup' && name === op.bulk?.param) {
    // The tool takes more than one request's worth: the client sends them 100 per request.
    s.maxItems = MAX_LOOKUP_QUERIES;
    s.description = `Registry codes (8 digits), VAT numbers (EE + 9 digits) or company names, mixed; up to ${MAX_LOOKUP_QUERIES}.`;
  }
  return s;
}

function inputSchemaOf(op: AnyOperation, kind: ToolKind): Tool['inputSchema'] {
  const properties: Record<string, object> = {};
  const required: string[] = [];
  for (const [name, spec] of Object.entries(op.params)) {
    properties[name] = paramSchema(name, op, kind);
    if (!isOptional(spec.schema)) required.push(name);
  }
  if (kind === 'lookup') {
    properties.max_billed_queries = {
      type: 'integer',
      minimum: 1,
      maximum: MAX_LOOKUP_QUERIES,
      default: DEFAULT_MAX_BILLED_QUERIES,
      description:
        'Most queries this call may bill. When the distinct new queries are more, nothing is sent and the answer says how many it would bill.',
    };
  }
  if (isRead(op) || kind === 'lookup') {
    properties.full = {
      type: 'boolean',
      default: false,
      description: "Whether to return the service's whole answer instead of the compact fields.",
    };
  }
  return { type: 'object', properties, ...(required.length ? { required } : {}), additionalProperties: false };
}

/** Every tool's structured result: rows in items, plus what tells the assistant how to go on. */
export const outputSchema: Tool['outputSchema'] = {
  type: 'object',
  properties: {
    items: { type: 'array', items: { type: 'object' }, description: 'The rows of the answer (one for a single object).' },
    count: { type: 'integer', description: 'How many rows are in items.' },
    total: { type: 'integer', description: 'All rows the service has, when it says.' },
    page: { type: 'integer' },
    limit: { type: 'integer' },
    more_available: { type: 'boolean', description: 'Whether more rows exist beyond these.' },
    next_page: { type: 'integer', description: 'The page to ask for next.' },
    next_after: { type: 'string', description: 'The cursor to pass as after next.' },
    how_to_get_more: { type: 'string' },
    capped: { type: 'boolean', description: "The search reached the service's 200-result cap: narrow it to see the rest." },
    billed_queries: { type: 'integer', description: 'Queries this call was billed for.' },
    summary: { type: 'string' },
    meta: { type: 'object', description: 'What the service said about the answer besides the rows.' },
    request_id: { type: 'string', description: "Quote it when asking the service's support about this answer." },
  },
  required: ['items', 'count'],
};

function definitionOf(op: AnyOperation, kind: ToolKind): Tool {
  const read = isRead(op);
  return {
    name: toolName(op),
    title: op.action,
    description: describe(op, kind),
    inputSchema: inputSchemaOf(op, kind),
    outputSchema,
    annotations: {
      title: op.action,
      // The lookup is a POST that changes nothing but the bill: to the assistant it is a read.
      readOnlyHint: read || kind === 'lookup',
      // Renaming, recategorising, removing and replacing a list's companies lose what was there.
      destructiveHint: !read && kind !== 'lookup' && (op.method !== 'POST' || 'replace' in op.params),
      // 'safe' retries are exactly the calls that do the same thing when repeated.
      idempotentHint: op.retry === 'safe',
      // A closed registry dataset; only a webhook test reaches out to an address of the user's.
      openWorldHint: op.group === 'webhook' && !read,
    },
  };
}

const takesText = (s: Record<string, unknown>): boolean =>
  s.type === 'string' || (s.type === 'array' && !!s.items && takesText(s.items as Record<string, unknown>));

export const tools: readonly CompanyDataTool[] = operations
  .filter((op) => !op.notATool)
  .map((op) => {
    const kind = kindOf(op);
    const definition = definitionOf(op, kind);
    const props = definition.inputSchema.properties as Record<string, Record<string, unknown>>;
    const textParams = new Set(Object.keys(op.params).filter((name) => takesText(props[name]!)));
    return { name: toolName(op), op, kind, definition, textParams };
  });

export const toolByName: ReadonlyMap<string, CompanyDataTool> = new Map(tools.map((t) => [t.name, t]));
