/**
 * The public API of the tool package, pinned: the names the entries `company-data` (packages/company-data/src/index.ts)
 * and `company-data/sheets` (packages/company-data/src/sheets/index.ts) export, values and types apart, sorted. Changing a
 * list here is a deliberate change of the library's API (say so in the change). Also: every name the README's
 * Library sections import or name is exported, and the runtime values match the declared ones.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(__dirname, '../..');
const MAIN = resolve(root, 'packages/company-data/src/index.ts');
const SHEETS = resolve(root, 'packages/company-data/src/sheets/index.ts');

const PINNED = {
  main: {
    values: [
      'answerStatus',
      'AuthenticationError',
      'bulkLookup',
      'checkWebhook',
      'classifyLookupQuery',
      'collectAll',
      'CompanyDataClient',
      'CompanyDataError',
      'ConnectionError',
      'CoreClient',
      'errorFromResponse',
      'EVENT_ID_HEADER',
      'FINAL_LOOKUP_STATUSES',
      'getOperation',
      'isRegistryCode',
      'iterateItems',
      'lookupInBatches',
      'lookupKey',
      'lookupQueryProblem',
      'MemoryDedupeStore',
      'normaliseVatNumber',
      'NotFoundError',
      'NotSentError',
      'operationGroups',
      'operations',
      'personalCodeProblem',
      'PlanRequiredError',
      'RateLimiter',
      'RateLimitError',
      'readQuery',
      'registryCodeProblem',
      'sameQuery',
      'SchemaError',
      'ServerError',
      'SIGNATURE_HEADER',
      'SignatureVerificationError',
      'signWebhook',
      'statusText',
      'systemClock',
      'TimeoutError',
      'TIMESTAMP_HEADER',
      'TransportError',
      'UndiciTransport',
      'ValidationError',
      'vatChecksumOk',
      'vatNumberProblem',
      'verifyWebhook',
    ],
    types: [
      'Announcement',
      'AnnualReport',
      'AnnualReportListItem',
      'AnyOperation',
      'ApiResult',
      'BatchOptions',
      'BatchOutcome',
      'BulkLookupCounters',
      'BulkLookupItem',
      'BulkLookupOptions',
      'BulkLookupProgress',
      'BulkLookupResult',
      'CallOptions',
      'ClientNamespaces',
      'Clock',
      'CollectAllOptions',
      'CollectAllResult',
      'CompanyDataClientOptions',
      'CompanyDataErrorInit',
      'CompanyProfile',
      'CompanySummary',
      'ConsumerDispute',
      'CoreClientOptions',
      'CourtCase',
      'CreditScore',
      'CursorOperation',
      'CursorPage',
      'DedupeStore',
      'Delivery',
      'Domain',
      'Enforcement',
      'ErrorBody',
      'ErrorFromResponseOptions',
      'Financials',
      'GroupKey',
      'Holding',
      'HttpMethod',
      'IdKind',
      'IncludeSection',
      'ItemOf',
      'Lang',
      'ListCompany',
      'LookupBatchesOptions',
      'LookupBatchesResult',
      'LookupCache',
      'LookupKey',
      'LookupQueryClass',
      'LookupQueryType',
      'LookupResult',
      'LookupSender',
      'LookupStatus',
      'MemoryDedupeStoreOptions',
      'Meta',
      'MonitoringCategory',
      'MonitoringChangeEvent',
      'MonitoringList',
      'OperationData',
      'OperationGroups',
      'OperationInput',
      'OperationMeta',
      'OperationParams',
      'OperationResult',
      'OperationSpec',
      'Page',
      'Pagination',
      'ParamIn',
      'ParamOption',
      'ParamSpec',
      'Party',
      'PartyRole',
      'PaymentOrder',
      'Permit',
      'Person',
      'PersonSearchItem',
      'PickerKey',
      'Property',
      'QuarterlyTaxesItem',
      'QueryReading',
      'QuerySettled',
      'RateLimiterOptions',
      'RequestInfo',
      'RetryInfo',
      'RetryOptions',
      'RetryPolicy',
      'Ruling',
      'SavedSearch',
      'SchemaMismatch',
      'SearchMatchesEvent',
      'SendQuery',
      'Shareholder',
      'SignatureFailure',
      'SignatureFailureReason',
      'SignWebhookInput',
      'StatePayment',
      'TaxDebt',
      'TaxDeclarations',
      'Transport',
      'TransportErrorKind',
      'TransportRequest',
      'TransportResponse',
      'UndiciTransportOptions',
      'ValidationErrorInit',
      'VerifyWebhookInput',
      'WebhookCheck',
      'WebhookConfig',
      'WebhookEvent',
      'WebhookEventType',
      'WebhookHeaders',
      'WebhookTestEvent',
    ],
  },
  sheets: {
    values: [
      'CsvTable',
      'defaultFields',
      'enrichTable',
      'EVENT_COLUMNS',
      'EventSheetWriter',
      'googleAuthClient',
      'GoogleSheetTable',
      'MemoryTable',
      'pollEventsToSheet',
      'PreflightError',
      'reportOfFailedRun',
      'SheetsError',
      'sheetsFields',
      'startWebhookReceiver',
      'summaryFields',
      'wordSheetsError',
      'XlsxTable',
    ],
    types: [
      'CellWrite',
      'CsvFormulas',
      'CsvTableOptions',
      'EnrichClient',
      'EnrichMode',
      'EnrichOptions',
      'EnrichProgress',
      'EnrichReport',
      'EventsClient',
      'EventSheetOptions',
      'GoogleAuthClient',
      'GoogleCredentials',
      'GoogleSheetTableOptions',
      'PollOptions',
      'SheetsField',
      'SheetsFieldNames',
      'SummaryField',
      'Table',
      'TableSnapshot',
      'WebhookReceiverOptions',
      'WordedSheetsError',
      'WriteCheck',
      'XlsxTableOptions',
    ],
  },
};

type Entry = keyof typeof PINNED;
type Exports = { values: string[]; types: string[] };

/** What each entry exports according to the compiler: values (classes, functions, constants) and type-only names. */
function declaredExports(): Record<Entry, Exports> {
  const program = ts.createProgram([MAIN, SHEETS], {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    strict: true,
    esModuleInterop: true,
    resolveJsonModule: true,
    skipLibCheck: true,
    noEmit: true,
    types: ['node'],
  });
  const checker = program.getTypeChecker();
  const read = (file: string): Exports => {
    const moduleSymbol = checker.getSymbolAtLocation(program.getSourceFile(file)!)!;
    const out: Exports = { values: [], types: [] };
    for (const exported of checker.getExportsOfModule(moduleSymbol)) {
      const target = exported.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(exported) : exported;
      (target.flags & ts.SymbolFlags.Value ? out.values : out.types).push(exported.name);
    }
    return { values: sorted(out.values), types: sorted(out.types) };
  };
  return { main: read(MAIN), sheets: read(SHEETS) };
}

const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** Case-insensitive, then by code unit: the order of the pinned lists. */
const sorted = (names: string[]) => [...names].sort((a, b) => byCodeUnit(a.toLowerCase(), b.toLowerCase()) || byCodeUnit(a, b));

/** The `## Library` section of a README (up to the next `## ` heading). */
function librarySection(file: string): string {
  const text = readFileSync(resolve(root, file), 'utf8');
  const start = text.search(/^## Library\b/m);
  if (start < 0) return '';
  const rest = text.slice(start + 3);
  const end = rest.search(/^## /m);
  return end < 0 ? rest : rest.slice(0, end);
}

/** Names imported from company-data or company-data/sheets in a text's code. */
function importedNames(text: string): Record<Entry, string[]> {
  const found: Record<Entry, string[]> = { main: [], sheets: [] };
  for (const m of text.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*['"](company-data(?:\/sheets)?)['"]/g)) {
    const names = m[1]!
      .split(',')
      .map(
        (n) =>
          n
            .trim()
            .replace(/^type\s+/, '')
            .split(/\s+as\s+/)[0]!,
      )
      .filter(Boolean);
    found[m[2] === 'company-data' ? 'main' : 'sheets'].push(...names);
  }
  return found;
}

describe('public API of company-data', () => {
  const declared = declaredExports();

  it('exports exactly the pinned names (main entry and company-data/sheets)', () => {
    expect(declared.main).toEqual(PINNED.main);
    expect(declared.sheets).toEqual(PINNED.sheets);
  });

  it('has at run time exactly the pinned values', async () => {
    const main = (await import('../../packages/company-data/src/index')) as Record<string, unknown>;
    const sheets = (await import('../../packages/company-data/src/sheets/index')) as Record<string, unknown>;
    const runtime = (mod: Record<string, unknown>) => sorted(Object.keys(mod).filter((k) => k !== 'default' && k !== '__esModule'));
    expect(runtime(main)).toEqual(PINNED.main.values);
    expect(runtime(sheets)).toEqual(PINNED.sheets.values);
  });

  it('exports every name the Library sections of the READMEs import or name', () => {
    const all = new Set([...declared.main.values, ...declared.main.types, ...declared.sheets.values, ...declared.sheets.types]);
    for (const readme of ['README.md', 'packages/company-data/README.md']) {
      const section = readme === 'README.md' ? librarySection(readme) : readFileSync(resolve(root, readme), 'utf8');
      const imports = importedNames(section);
      if (readme === 'README.md') expect(imports.main.length + imports.sheets.length).toBeGreaterThan(0);
      for (const entry of ['main', 'sheets'] as const) {
        const exported = new Set([...declared[entry].values, ...declared[entry].types]);
        expect(
          imports[entry].filter((n) => !exported.has(n)),
          `${readme}: imported from ${entry} but not exported`,
        ).toEqual([]);
      }
      // Identifiers the prose names in backticks that look like API names (error classes, functions): `ValidationError`.
      const named = [...section.matchAll(/`([A-Za-z_$][\w$]*)`/g)]
        .map((m) => m[1]!)
        .filter((n) => /^[A-Z][a-z]\w*[A-Z]\w*$|^[a-z]+[A-Z]\w*$/.test(n));
      expect(
        named.filter((n) => !all.has(n)),
        `${readme}: named but not exported`,
      ).toEqual([]);
    }
  });

  it('keeps what scripts/check-packages.mjs and docs/architecture.md promise', () => {
    const promised = {
      main: [
        'CompanyDataClient',
        'CoreClient',
        'verifyWebhook',
        'signWebhook',
        'checkWebhook',
        'MemoryDedupeStore',
        'DedupeStore',
        'SignatureVerificationError',
        'errorFromResponse',
        'lookupInBatches',
        'lookupKey',
        'readQuery',
        'answerStatus',
        'statusText',
        'sameQuery',
        'FINAL_LOOKUP_STATUSES',
        'LookupStatus',
        'LookupSender',
        'Transport',
        'TransportError',
        'Clock',
        'ApiResult',
        'RateLimiter',
        'RetryOptions',
        'NotSentError',
        'UndiciTransport',
        'UndiciTransportOptions',
        'systemClock',
        'operationGroups',
        'operations',
      ],
      sheets: ['enrichTable', 'XlsxTable', 'CsvTable', 'GoogleSheetTable'],
    };
    for (const entry of ['main', 'sheets'] as const) {
      const exported = new Set([...declared[entry].values, ...declared[entry].types]);
      expect(promised[entry].filter((n) => !exported.has(n))).toEqual([]);
    }
  });
});
