import type { IncludeSection } from '../../params';
import type { Lang } from '../../schemas/common';
import type { CompanySummary } from '../../schemas/company';
import type { LookupSender } from '../../bulk-lookup';
import { flatCompany, flatCompanyFields, type FlatCompanyField } from '../../simplify';
import type { Table } from '../table/table';
import type { WriteCheck } from '../checks/preflight';
import type { OpenAnswerStore, SheetsClock, WriterLocks } from '../ports';

/** A flat company field as cell text: the same value the n8n Lookup puts in company_data_match_<field>. */
const flatField =
  (f: FlatCompanyField) =>
  (c: CompanySummary): string => {
    const v = flatCompany(c)[f];
    return v === null || v === undefined ? '' : String(v);
  };

/**
 * Fields a user can pick from the company summary, and how each is written as text: flatCompany's (the
 * n8n Lookup's), so `status` is the code and `status_label` the register's label in --lang, plus the
 * earlier name a name query matched.
 */
export const summaryFields = {
  ...(Object.fromEntries(flatCompanyFields.map((f) => [f, flatField(f)])) as Record<FlatCompanyField, (c: CompanySummary) => string>),
  matched_previous_name: (c: CompanySummary) => c.matched_previous_name ?? '',
};
export type SummaryField = keyof typeof summaryFields;
export const defaultFields: readonly SummaryField[] = ['name', 'registry_code', 'status_label', 'legal_form', 'address', 'vat_number'];

export type EnrichMode = 'missing' | 'all' | { olderThanDays: number };

/** What enrich needs from the client (CoreClient satisfies it). */
export interface EnrichClient {
  lookupSender(): LookupSender;
  /** The client's default language, when it has one: answers are cached per language. */
  readonly lang?: Lang;
  /** The service's base URL: answers are cached per service. */
  readonly serviceUrl?: string;
  companies: { get(input: { registry_code: string; include?: IncludeSection[]; lang?: Lang }): Promise<{ data: unknown }> };
}

export interface EnrichProgress {
  /** Distinct queries answered so far (including ones from the progress of an interrupted run) and in all. */
  done: number;
  total: number;
  requests: number;
}

export interface SheetsEnrichOptions {
  table: Table;
  client: EnrichClient;
  /** Header of the key column; found automatically when not given. */
  column?: string;
  fields?: readonly SummaryField[];
  /** Profile sections fetched per matched company (one extra request each). */
  sections?: readonly IncludeSection[];
  /** missing (default): rows not enriched yet; { olderThanDays }: also rows enriched before then; all. */
  mode?: EnrichMode;
  /** Overwrite non-empty cells a person typed. */
  force?: boolean;
  dryRun?: boolean;
  /**
   * Most distinct queries this run may bill (after dedupe and the store of paid answers). Above it nothing is
   * sent and the run fails saying how many it would bill: check before paying, as the n8n Lookup.
   */
  maxBilledQueries?: number;
  lang?: Lang;
  /** Reuse answers paid for in earlier runs when younger than this many days (default 30; 0: never). */
  maxAgeDays?: number;
  /** Which service answers, for the store of paid answers (default: the client's base URL). */
  service?: string;
  /** Save at most this often while running (default: the table's saveEveryMs; 10 s for XLSX and Google Sheets). A CSV is saved once, at the end. */
  flushEveryMs?: number;
  onProgress?: (p: EnrichProgress) => void;
  /** Stops sending; the lookup requests in flight finish and every row answered is saved. */
  signal?: AbortSignal;
  /** The run's time, for enriched_at and the age of answers (default: the clock's). */
  now?: () => Date;
  /** The world: clock, store of paid answers, writer lock. */
  ports: EnrichPorts;
}

export interface EnrichReport {
  keyColumn: string;
  /** Data rows in the table. */
  rows: number;
  /** Rows this run looks at (mode, non-empty key). */
  rowsInScope: number;
  uniqueQueries: number;
  /** Distinct queries answered from the progress of an interrupted run (the CLI's resume journal; free). */
  fromJournal: number;
  /** Distinct queries answered from the answer cache of earlier runs (free). */
  fromCache: number;
  /** Lookup requests made (or, in a dry run, that would be made). */
  requests: number;
  billedQueries: number;
  /** Profile requests for sections (or an upper bound in a dry run). */
  profileRequests: number;
  matched: number;
  noMatch: number;
  vatGroups: number;
  skipped: number;
  invalid: number;
  errors: number;
  /** The first error, so a run whose rows all failed says why (the client keeps secrets out of it). */
  firstError?: { code: string; message: string; hint?: string };
  /** Cells of the tool's columns left as a person typed them (use force to overwrite). */
  keptCells: number;
  /**
   * Rows someone else changed while the run went (an inserted row, an edited key) whose key this run did
   * not look up: left alone, for the next run. A Google sheet only; a file changed on disk is not saved at all.
   */
  leftAlone: number;
  /** Headers of the sheet named like an output field ("Name", "Status"): a person's columns, left as they are. */
  personColumns: string[];
  /** Rows enriched by the version before the company_data_ columns, whose answers are not free: they keep their data where it is. */
  legacyRows: number;
  dryRun: boolean;
  interrupted: boolean;
  /** The checks made before paying (tables that can refuse a save: Google Sheets); a dry run reports them too. */
  checks?: WriteCheck[];
  /**
   * Set when the run stopped on an error after it began paying (a refused save, revoked credentials):
   * how many answers it paid for, all kept in the store of paid answers, so running again bills nothing for them.
   */
  failed?: {
    keptAnswers: number;
    /** Where the store keeps them (PaidAnswerStore.location: the CLI's state folder). */
    stateDir: string;
  };
}

/** The report of a run that stopped on this error after it began paying, when there is one. */
export function reportOfFailedRun(err: unknown): EnrichReport | undefined {
  return (err as { enrichReport?: EnrichReport } | null)?.enrichReport;
}

/** What enrich needs from the world. */
export interface EnrichPorts {
  /** Time and the save loop's cancellable wait. */
  clock: SheetsClock;
  /** Opens this run's store of paid answers (progress of this table, answers of earlier runs). */
  answers: OpenAnswerStore;
  /** Taken before the table is read, released at the end; none for a dry run. Without one, nothing stops a second writer. */
  locks?: WriterLocks;
}

/** The enrich entry: plans, checks before paying, looks up, and saves while the answers arrive. */
export type EnrichSheet = (opts: SheetsEnrichOptions) => Promise<EnrichReport>;
