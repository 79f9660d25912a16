import { Command, InvalidArgumentError, Option } from 'commander';
import { includeSections, type IncludeSection } from '@company-data/core/params';
import {
  enrichTable,
  reportOfFailedRun,
  summaryFields,
  defaultFields,
  type EnrichMode,
  type EnrichReport,
  type SummaryField,
} from '../../sheets/enrich';
import { stateDirOption, wholeNumberOption } from '../options';
import { checkLine } from '../../sheets/preflight';
import { DEFAULT_MAX_AGE_DAYS } from '../../sheets/answer-cache';
import type { CsvFormulas } from '../../sheets/csv-table';
import {
  addApiOptions,
  addGoogleOptions,
  apiTarget,
  csvFormulasOption,
  openClient,
  openTable,
  type ApiFlags,
  type GoogleFlags,
} from '../config';
import { langs, type Lang } from '@company-data/core/vocabulary';

interface EnrichFlags extends ApiFlags, GoogleFlags {
  spreadsheet?: string;
  sheet?: string;
  column?: string;
  out?: string;
  fields: SummaryField[];
  sections: IncludeSection[];
  mode: EnrichMode;
  dryRun?: boolean;
  maxBilledQueries?: number;
  force?: boolean;
  lang?: Lang;
  stateDir?: string;
  csvFormulas: CsvFormulas;
  maxAge: number;
}

/** Field names of the version before issue 22 that mean something else now. */
const renamedFields: Record<string, string> = {
  status_code: 'status_code: is now "status" (the code); "status_label" is the label the old "status" gave',
};

function list<T extends string>(allowed: readonly T[], flag: string) {
  return (value: string): T[] => {
    const items = value
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    for (const i of items) {
      if (allowed.includes(i as T)) continue;
      if (flag === 'fields' && renamedFields[i]) throw new InvalidArgumentError(`fields: ${renamedFields[i]}`);
      throw new InvalidArgumentError(`${flag}: "${i}" is not one of ${allowed.join(', ')}`);
    }
    return items as T[];
  };
}

function parseMode(value: string): EnrichMode {
  if (value === 'missing' || value === 'all') return value;
  const m = /^older-than:(\d+)$/.exec(value) ?? /^(\d+)$/.exec(value);
  if (m) return { olderThanDays: Number(m[1]) };
  throw new InvalidArgumentError('mode: must be missing, all, or older-than:DAYS (for example older-than:30)');
}

function days(value: string): number {
  if (!/^\d+(\.\d+)?$/.test(value)) throw new InvalidArgumentError('max-age: must be a number of days, 0 or more (0: never reuse answers)');
  return Number(value);
}

/** The answers this run gets without paying. */
function freeText(r: EnrichReport): string {
  const parts = [
    ...(r.fromJournal ? [`${r.fromJournal} answered in the interrupted run`] : []),
    ...(r.fromCache ? [`${r.fromCache} answered in earlier runs (--max-age)`] : []),
  ];
  return parts.length ? ` (free: ${parts.join(', ')})` : '';
}

export function formatReport(r: EnrichReport): string[] {
  const answered = r.matched + r.noMatch + r.vatGroups;
  const lines = r.dryRun
    ? [
        `Dry run (nothing sent, no cell changed). Key column: ${r.keyColumn}`,
        ...(r.checks ?? []).map(checkLine),
        `Rows: ${r.rows} in the table, ${r.rowsInScope} to enrich`,
        `Unique queries: ${r.uniqueQueries}${freeText(r)}`,
        `Requests: ${r.requests} lookup request(s)`,
        `Billed queries: ${r.billedQueries}`,
      ]
    : [
        r.failed
          ? `Stopped by the error below. Key column: ${r.keyColumn}. Rows answered before it: ${answered}`
          : `${r.errors ? 'Finished with errors' : 'Done'}. Key column: ${r.keyColumn}. Rows enriched this run: ${answered}`,
        `Matched ${r.matched}, VAT groups ${r.vatGroups}, no match ${r.noMatch}, skipped ${r.skipped}, invalid ${r.invalid}, errors ${r.errors}`,
        `Requests: ${r.requests}; billed queries: ${r.billedQueries}${freeText(r)}`,
      ];
  if (r.profileRequests)
    lines.push(
      `Profile requests for sections: ${r.profileRequests}${r.dryRun ? ' at most (one per matched company; not in the billed queries)' : ''}`,
    );
  if (r.personColumns.length)
    lines.push(
      `Your column(s) ${r.personColumns.map((h) => `"${h}"`).join(', ')} were left as they are; company data goes to the company_data_ columns.`,
    );
  if (!r.dryRun && r.invalid + r.skipped)
    lines.push(
      `Invalid and too-short entries were not sent and cost nothing (see the company_data_status and company_data_reason columns).`,
    );
  if (r.leftAlone) lines.push(`${r.leftAlone} row(s) changed by someone else during the run were left alone; run again to enrich them.`);
  if (r.legacyRows)
    lines.push(
      `${r.legacyRows} row(s) enriched by an earlier version keep their data in its columns (enrich_status, ...); --mode all moves them to the company_data_ columns (billed again).`,
    );
  if (r.firstError) {
    const e = r.firstError;
    lines.push(`Error: ${e.message} (${e.code}).${e.hint ? ` ${e.hint}` : ''} Rows with an error are tried again on the next run.`);
  }
  if (r.keptCells) lines.push(`${r.keptCells} cell(s) typed by a person were kept; use --force to overwrite them.`);
  if (r.failed) {
    const n = r.failed.keptAnswers;
    lines.push(
      n
        ? `Kept: the ${n} answer(s) paid for in this run are in ${r.failed.stateDir}; running the same command again bills nothing for them.`
        : 'Nothing was billed in this run.',
    );
  } else if (r.interrupted)
    lines.push('Interrupted: finished rows are saved; run the same command again to continue without paying twice.');
  return lines;
}

export function enrichCommand(): Command {
  const cmd = new Command('enrich')
    .description('Add company data to the rows of a CSV or XLSX file or a Google sheet, by registry code, VAT number or name')
    .argument('[file]', 'a .csv or .xlsx file (enriched in place unless --out is given)')
    .option('--spreadsheet <id-or-address>', 'Google spreadsheet: its ID or its address (https://docs.google.com/spreadsheets/d/…)')
    .option('--sheet <name>', 'sheet (tab) name; the first sheet by default')
    .option('--column <header>', 'header of the column holding registry codes, VAT numbers or names (found automatically otherwise)')
    .option('--out <file>', 'write the result to this file instead of changing the input')
    .addOption(
      new Option('--fields <list>', `columns to add, comma-separated: ${Object.keys(summaryFields).join(', ')}`)
        .argParser(list(Object.keys(summaryFields) as SummaryField[], 'fields'))
        .default([...defaultFields], defaultFields.join(',')),
    )
    .addOption(
      new Option('--sections <list>', 'profile sections to add, e.g. credit_score,tax_debt (one extra request per matched company)')
        .argParser(list(includeSections, 'sections'))
        .default([], 'none'),
    )
    .addOption(
      new Option('--mode <mode>', 'which rows: missing (not enriched yet), older-than:DAYS, or all')
        .argParser(parseMode)
        .default('missing'),
    )
    .option('--dry-run', 'show the cost (rows, unique queries, requests, billed queries) and change nothing')
    .addOption(
      wholeNumberOption(
        '--max-billed-queries <n>',
        'refuse the run, before anything is sent, when it would bill more unique queries than this (the count is in the message; --dry-run shows it too)',
        1,
      ),
    )
    // The old name paid for the first N and left the rest: a different meaning, so it is not kept as an alias.
    .addOption(
      new Option('--max-queries <n>').hideHelp().argParser(() => {
        throw new InvalidArgumentError(
          'max-queries: was replaced by --max-billed-queries <n>, which refuses a run that would bill more than n unique queries before sending anything (it no longer pays for the first n and leaves the rest)',
        );
      }),
    )
    .option('--force', 'overwrite cells a person typed')
    .addOption(new Option('--lang <lang>', 'language of labels').choices(langs))
    .addOption(stateDirOption('where resume state and paid answers are kept'))
    .addOption(
      new Option('--max-age <days>', 'reuse answers paid for in earlier runs when younger than this; 0: never')
        .argParser(days)
        .default(DEFAULT_MAX_AGE_DAYS),
    )
    .addOption(csvFormulasOption());
  addApiOptions(cmd);
  addGoogleOptions(cmd);
  cmd.action(runEnrich);
  return cmd;
}

/** A progress bar on a terminal (none when piped or for a dry run): its onProgress and its stop. */
async function progressBar(flags: EnrichFlags) {
  if (!process.stderr.isTTY || flags.dryRun) return { onProgress: () => undefined, stop: () => undefined };
  const { SingleBar, Presets } = await import('cli-progress');
  const bar = new SingleBar(
    { format: 'Enriching [{bar}] {value}/{total} queries | {requests} requests', stream: process.stderr, hideCursor: true },
    Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (p: { total: number; done: number; requests: number }) => {
      if (!started) {
        bar.start(p.total, p.done, { requests: p.requests });
        started = true;
      } else bar.update(p.done, { requests: p.requests });
    },
    stop: () => bar.stop(),
  };
}

/** The flags as the engine's options. */
function enrichOptions(flags: EnrichFlags, offline: boolean) {
  return {
    ...(flags.column ? { column: flags.column } : {}),
    fields: flags.fields,
    sections: flags.sections,
    mode: flags.mode,
    force: !!flags.force,
    dryRun: !!flags.dryRun,
    ...(flags.maxBilledQueries ? { maxBilledQueries: flags.maxBilledQueries } : {}),
    ...(flags.lang ? { lang: flags.lang } : {}),
    ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
    maxAgeDays: flags.maxAge,
    // The offline sandbox listens on a new port each run but always answers alike.
    ...(offline ? { service: 'offline-sandbox' } : {}),
  };
}

/** `enrich`: opens the table and the client, runs the engine, prints the report; Ctrl+C stops after the requests in flight. */
async function runEnrich(file: string | undefined, flags: EnrichFlags): Promise<void> {
  const say = (line: string) => process.stderr.write(line + '\n');
  apiTarget(flags); // a half-given service address is named before the file is looked at
  const table = await openTable(
    { file, spreadsheet: flags.spreadsheet, sheet: flags.sheet, out: flags.out, mustExist: true, csvFormulas: flags.csvFormulas },
    flags,
  );
  const opened = await openClient(flags, say);
  const controller = new AbortController();
  const onSignal = () => {
    say('Stopping after the requests in flight; finished rows are being saved...');
    controller.abort();
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let bar: { stop(): void } | undefined;
  try {
    const progress = await progressBar(flags);
    bar = progress;
    const report = await enrichTable({
      table,
      client: opened.client,
      ...enrichOptions(flags, opened.offline),
      signal: controller.signal,
      onProgress: progress.onProgress,
    });
    bar.stop();
    for (const line of formatReport(report)) process.stdout.write(line + '\n');
    if (report.errors || report.checks?.some((c) => c.ok === false)) process.exitCode = 2;
  } catch (err) {
    // A run that stopped after it began paying still ends with its report; the error (what to do) follows it.
    bar?.stop();
    const report = reportOfFailedRun(err);
    if (report) for (const line of formatReport(report)) process.stdout.write(line + '\n');
    throw err;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await opened.close();
  }
}
