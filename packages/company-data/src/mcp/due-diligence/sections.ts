/**
 * The sections a due-diligence check reads, as data: one operation of the table each, called through the
 * same tool runner as the single tools (so validation, compact rows and errors are those of the tools),
 * all at once and each on its own: a section that fails (403 plan, 500, time-out) is recorded as failed
 * and the others still answer.
 */
import { CompanyDataError, redact } from '@company-data/core/errors';
import type { AnyOperation } from '@company-data/core/operation';
import { operationGroups as ops } from '@company-data/core/operations';
import type { Lang } from '@company-data/core/schemas/common';
import { runTool, type CallContext, type Structured } from '../call';
import { toolByName, toolName } from '../tools';

export type Row = Record<string, unknown>;

/** Rows per list section: the newest (risk lists) or first (people) rows, with the service's total. */
const RISK_ROWS = 5;
const PEOPLE_ROWS = 10;

export const sectionSpecs = [
  { key: 'profile', title: 'registry profile', op: ops.companies.get, full: true },
  { key: 'representatives', title: 'representatives', op: ops.people.representatives, limit: PEOPLE_ROWS },
  { key: 'beneficial_owners', title: 'beneficial owners', op: ops.people.beneficialOwners, limit: PEOPLE_ROWS },
  { key: 'credit_score', title: 'credit score', op: ops.risk.creditScore },
  { key: 'tax_debt', title: 'tax debt', op: ops.risk.taxDebt },
  { key: 'tax_declarations', title: 'tax declarations', op: ops.risk.taxDeclarations },
  { key: 'court_cases', title: 'court cases', op: ops.risk.courtCases, limit: RISK_ROWS },
  { key: 'enforcements', title: 'enforcement proceedings', op: ops.risk.enforcements, limit: RISK_ROWS },
  { key: 'payment_orders', title: 'payment orders', op: ops.risk.paymentOrders, limit: RISK_ROWS },
  { key: 'annual_reports', title: 'annual reports', op: ops.financials.annualReports },
  { key: 'financials', title: 'annual report figures', op: ops.financials.financials },
] as const satisfies readonly { key: string; title: string; op: AnyOperation; limit?: number; full?: boolean }[];

export type SectionKey = (typeof sectionSpecs)[number]['key'];

export type SectionResult =
  | { ok: true; rows: Row[]; total?: number; requestId?: string }
  | { ok: false; error: SectionFailure; cause: unknown };

export interface SectionFailure {
  section: SectionKey;
  /** The tool (one per operation) that reads this section alone. */
  source: string;
  code: string;
  status?: number;
  message: string;
  request_id?: string;
}

export type Sections = Record<SectionKey, SectionResult>;

/** The tool name of a section's operation: what the answer names as the source of a fact or a flag. */
export const sourceOf = (key: SectionKey): string => toolName(sectionSpecs.find((s) => s.key === key)!.op);

function failure(key: SectionKey, err: unknown, secrets: readonly string[]): SectionFailure {
  const base = { section: key, source: sourceOf(key) };
  if (err instanceof CompanyDataError)
    return {
      ...base,
      code: err.code,
      ...(err.status !== undefined ? { status: err.status } : {}),
      message: redact(`${err.message}. ${err.hint}`, secrets),
      ...(err.requestId ? { request_id: err.requestId } : {}),
    };
  return { ...base, code: 'unexpected', message: redact(err instanceof Error ? err.message : String(err), secrets) };
}

export interface GatherOptions {
  registryCode: string;
  lang?: Lang;
  secrets: readonly string[];
  /** A profile already read (a VAT number is resolved by reading its holder's profile): not read again. */
  profile?: Row;
  /** Called as each section ends, for the server's log notifications. */
  onSection?: (key: SectionKey, result: SectionResult, ms: number) => void;
}

/** Every section at once through the client (its rate limit paces them); never throws for one section. */
export async function gatherSections(ctx: CallContext, opts: GatherOptions): Promise<Sections> {
  const read = async (spec: (typeof sectionSpecs)[number]): Promise<SectionResult> => {
    if (spec.key === 'profile' && opts.profile) return { ok: true, rows: [opts.profile] };
    const tool = toolByName.get(toolName(spec.op))!;
    const args: Row = { registry_code: opts.registryCode };
    if (opts.lang) args.lang = opts.lang;
    if ('limit' in spec) args.limit = spec.limit;
    if ('full' in spec) args.full = true;
    const started = Date.now();
    let result: SectionResult;
    try {
      const s: Structured = await runTool(ctx, tool, args);
      result = {
        ok: true,
        rows: s.items,
        ...(typeof s.total === 'number' ? { total: s.total } : {}),
        ...(typeof s.request_id === 'string' ? { requestId: s.request_id } : {}),
      };
    } catch (err) {
      result = { ok: false, error: failure(spec.key, err, opts.secrets), cause: err };
    }
    opts.onSection?.(spec.key, result, Date.now() - started);
    return result;
  };
  const results = await Promise.all(sectionSpecs.map(read));
  return Object.fromEntries(sectionSpecs.map((s, i) => [s.key, results[i]!])) as Sections;
}
