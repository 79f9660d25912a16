/**
 * `company_due_diligence`: a company's profile, people, credit score, taxes, court and enforcement records
 * and annual reports in one call, with red flags ranked worst first, the cost, and the sections that could
 * not be read. A model otherwise makes a dozen calls and may stop halfway; the Companies House MCP servers'
 * company_report / due_diligence_check is the model for it.
 */
import type { CallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import { NotFoundError, ValidationError } from '@company-data/core/errors';
import { operationGroups as ops } from '@company-data/core/operations';
import type { Lang } from '@company-data/core/schemas/common';
import { classifyLookupQuery, registryCodeProblem, vatNumberProblem } from '@company-data/core/validation';
import { langs, langSchema, languageNames } from '@company-data/core/vocabulary';
import type { CallContext } from '../call';
import { toolName } from '../tools';
import { severities } from './red-flags';
import { buildReport, reportText, type DueDiligenceReport } from './report';
import { gatherSections, sectionSpecs, type Row, type SectionKey, type SectionResult } from './sections';

export const DUE_DILIGENCE_TOOL = 'company_due_diligence';
/** Companies a name search shows when it does not pick one. */
const CANDIDATES = 5;

const sectionList = sectionSpecs.map((s) => `${s.title} (${toolName(s.op)})`).join(', ');

const flagSchema = {
  type: 'object',
  properties: {
    severity: { type: 'string', enum: [...severities] },
    code: { type: 'string' },
    text: { type: 'string' },
    source: { type: 'string', description: 'The tool that reads this source alone.' },
    date: { type: 'string', description: 'Date of the fact: snapshot, decision, due date, scoring date (or a year).' },
  },
  required: ['severity', 'code', 'text', 'source'],
};

export const dueDiligenceDefinition: Tool = {
  name: DUE_DILIGENCE_TOOL,
  title: 'Company due diligence',
  description:
    `Checks one Estonian company in one call: ${sectionList}. ` +
    'Returns risk_level (high, medium, low), red_flags worst first (each with severity, the source tool and the date of the fact), compact facts per section, ' +
    'not_checked (sections that failed, with the error; the rest still comes back) and cost. ' +
    'Use it first for "is this company safe to deal with?"; call the source tools for full lists. ' +
    'Cost: not billed per query (only the bulk lookup is); about a dozen read requests.',
  inputSchema: {
    type: 'object',
    properties: {
      company: {
        type: 'string',
        description:
          'The company: its 8-digit registry code (best; the check digit is verified), its VAT number (EE + 9 digits) or its registered name (a search that must pick one company, else it lists the candidates).',
      },
      lang: {
        type: 'string',
        enum: [...langs],
        description: `Language of labels (${langs.map((l) => `${l} ${languageNames[l]}`).join(', ')}).`,
      },
    },
    required: ['company'],
    additionalProperties: false,
  },
  outputSchema: {
    type: 'object',
    properties: {
      registry_code: { type: 'string' },
      company: { type: 'object', description: 'Flat registry profile (absent when it could not be read).' },
      risk_level: {
        type: 'string',
        enum: ['high', 'medium', 'low'],
        description: 'The worst red flag decides: critical or high gives high.',
      },
      complete: { type: 'boolean', description: 'False when a section could not be read (see not_checked).' },
      red_flags: { type: 'array', items: flagSchema },
      facts: { type: 'object', description: 'A few fields per section that answered.' },
      not_checked: {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            section: { type: 'string' },
            source: { type: 'string' },
            code: { type: 'string' },
            status: { type: 'integer' },
            message: { type: 'string' },
            request_id: { type: 'string' },
          },
          required: ['section', 'source', 'code', 'message'],
        },
      },
      cost: {
        type: 'object',
        properties: { billed_queries: { type: 'integer' }, requests: { type: 'integer' }, text: { type: 'string' } },
        required: ['billed_queries', 'requests', 'text'],
      },
      as_of: { type: 'string', description: 'The date "recent" and "overdue" are judged against.' },
      notes: { type: 'array', items: { type: 'string' } },
    },
    required: ['registry_code', 'risk_level', 'complete', 'red_flags', 'facts', 'not_checked', 'cost', 'as_of'],
  },
  annotations: { title: 'Company due diligence', readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
};

export interface DueDiligenceContext extends CallContext {
  secrets: readonly string[];
  /** Today's date (YYYY-MM-DD) for "recent" and "overdue"; the real date unless a test sets it. */
  today?: () => string;
  onSection?: (key: SectionKey, result: SectionResult, ms: number) => void;
}

interface Resolved {
  registryCode: string;
  profile?: Row;
  requests: number;
  notes: string[];
}

const sameName = (a: string, b: string) => a.replace(/\s+/g, ' ').trim().toLowerCase() === b.replace(/\s+/g, ' ').trim().toLowerCase();

/** Registry code as given, a VAT number's holder, or the one company a name search picks. */
async function resolve(ctx: CallContext, given: string, lang: Lang | undefined): Promise<Resolved> {
  const q = classifyLookupQuery(given);
  if (q.type === 'registry_code') {
    const problem = registryCodeProblem(q.normalised);
    if (problem) throw new ValidationError({ field: 'company', rule: `registry code ${problem}` });
    return { registryCode: q.normalised, requests: 0, notes: [] };
  }
  if (q.type === 'vat_number') {
    const problem = vatNumberProblem(q.normalised);
    if (problem) throw new ValidationError({ field: 'company', rule: `VAT number ${problem}` });
    const res = await ctx.client.call(ops.companies.byVat, { vat_number: q.normalised, ...(lang ? { lang } : {}) });
    const holders = (res.meta as { vat_holders?: number }).vat_holders;
    const notes = [`Found by VAT number ${q.normalised}.`];
    if (holders !== undefined && holders > 1)
      notes.push(
        `${q.normalised} is a VAT group of ${holders} companies; this checks one of them. companies_search with vat_number lists all.`,
      );
    if (holders === 0) notes.push(`Nobody holds ${q.normalised} now; this checks its last holder.`);
    return { registryCode: res.data.registry_code, profile: res.data as Row, requests: 1, notes };
  }
  if (q.skipped)
    throw new ValidationError({
      field: 'company',
      rule: 'must be a registry code, a VAT number or a name with a word of 3 or more letters',
    });
  const res = await ctx.client.call(ops.companies.search, { q: q.normalised, limit: CANDIDATES, ...(lang ? { lang } : {}) });
  const found = res.data;
  const exact = found.filter((c) => sameName(c.name, q.normalised));
  const chosen = exact.length === 1 ? exact[0] : found.length === 1 ? found[0] : undefined;
  if (chosen)
    return {
      registryCode: chosen.registry_code,
      requests: 1,
      notes: [`Found by name "${q.normalised}": ${chosen.name} (${chosen.registry_code}).`],
    };
  if (!found.length)
    throw new NotFoundError(`No company matches the name "${q.normalised}"`, {
      code: 'not_found',
      hint: 'Check the spelling, or search with companies_search and pass the registry code',
    });
  const list = found.map((c) => `${c.name} (${c.registry_code}${c.status ? `, ${c.status.label ?? c.status.code}` : ''})`).join('; ');
  throw new ValidationError({
    field: 'company',
    rule: `matches more than one company: ${list}${(res.meta.pagination?.total ?? 0) > found.length ? '; and more' : ''}`,
    hint: 'Call again with the registry code of the company meant (ask the user when it is not clear which one)',
  });
}

export async function runDueDiligence(ctx: DueDiligenceContext, args: Record<string, unknown>): Promise<DueDiligenceReport> {
  const { company, registry_code: alias, lang, ...rest } = args;
  const unknown = Object.keys(rest);
  if (unknown.length) throw new ValidationError({ field: unknown[0]!, rule: 'is not a parameter of this tool (company, lang)' });
  const raw = company ?? alias;
  const given = typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0 ? String(raw) : raw;
  if (typeof given !== 'string' || !given.trim())
    throw new ValidationError({ field: 'company', rule: 'is required: a registry code, a VAT number or a name' });
  let language: Lang | undefined;
  if (lang !== undefined) {
    const parsed = langSchema.safeParse(lang);
    if (!parsed.success) throw new ValidationError({ field: 'lang', rule: parsed.error.issues[0]!.message });
    language = parsed.data;
  }
  const resolved = await resolve(ctx, given, language);
  const sections = await gatherSections(ctx, {
    registryCode: resolved.registryCode,
    lang: language,
    secrets: ctx.secrets,
    profile: resolved.profile,
    onSection: ctx.onSection,
  });
  // No profile because there is no such company, or nothing answered at all (a wrong key, the service down):
  // that error is the answer, not a report of eleven failures under a "low" verdict.
  if (!sections.profile.ok && (sections.profile.cause instanceof NotFoundError || sectionSpecs.every((s) => !sections[s.key].ok)))
    throw sections.profile.cause;
  const read = sectionSpecs.filter((s) => !(s.key === 'profile' && resolved.profile)).length;
  return buildReport({
    registryCode: resolved.registryCode,
    sections,
    today: ctx.today?.() ?? new Date().toISOString().slice(0, 10),
    requests: resolved.requests + read,
    notes: resolved.notes,
  });
}

/** The readable report as the text block, the same facts as structured content. */
export function dueDiligenceResult(report: DueDiligenceReport): CallToolResult {
  return { content: [{ type: 'text', text: reportText(report) }], structuredContent: report };
}
