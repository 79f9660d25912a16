import { writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import { Command } from 'commander';
import { buildDigest } from '@company-data/core/digest';
import { defaultListName, matchedCodes, sheetExternalRef, WATCH_FIELDS, type WatchTarget } from '@company-data/core/watch/list-sync';
import { SeenTable } from '@company-data/core/sheets/table/seen-table';
import type { SummaryLang } from '@company-data/core/vocabulary';
import { enrichTable, findKeyColumn, reportOfFailedRun, type EnrichReport } from '../../sheets/enrich';
import { pollEventsToSheet, startWebhookReceiver, type EventsClient } from '../../sheets/event-sources';
import { EventSheetWriter } from '../../sheets/events-to-rows';
import { DEFAULT_MAX_AGE_DAYS } from '../../sheets/answer-cache';
import type { CsvFormulas } from '../../sheets/csv-table';
import { defaultStateDir } from '../../sheets/state-dir';
import { systemClock } from '../../transport/clock';
import { spreadsheetIdOf } from '../../sheets/spreadsheet-address';
import { syncList, type ListSyncResult } from '../../sheets/watch-list';
import { PendingChanges, RowChangeWriter } from '../../sheets/watch-rows';
import type { Table } from '../../sheets/table';
import type { CompanyDataClient } from '../../index';
import { addApiOptions, addGoogleOptions, csvFormulasOption, openClient, openTable, type ApiFlags, type GoogleFlags } from '../config';
import { addWebhookOptions, intervalOption, requireWebhookSecret, stateDirOption, summaryLangOption, wholeNumberOption } from '../options';
import { formatReport } from './enrich';
import { logText } from './events-to-sheet';

interface WatchFlags extends ApiFlags, GoogleFlags {
  spreadsheet?: string;
  sheet?: string;
  column?: string;
  list?: string;
  eventsSheet: string;
  once?: boolean;
  interval: number;
  webhook?: boolean;
  port: number;
  host: string;
  secret?: string;
  lang: SummaryLang;
  maxBilledQueries?: number;
  stateDir?: string;
  digest?: string;
  digestLines: number;
  csvFormulas: CsvFormulas;
}

/** How often a pass's enrich saves while it runs (the last save is at its end). */
const WATCH_SAVE_EVERY_MS = 60_000;

/** Where a file's changes go: a CSV beside it, "<name> - Company changes.csv" (a CSV has no second sheet). */
export function eventsFileFor(file: string, eventsSheet: string): string {
  const base = basename(file, extname(file));
  return join(dirname(file), `${base} - ${eventsSheet.replace(/[\\/:*?"<>|]/g, '_')}.csv`);
}

export function listLine(r: ListSyncResult): string {
  return `List "${r.listName}" (${r.listId}${r.created ? ', made now' : ''}): added ${r.added}, removed ${r.removed}, kept ${r.kept}`;
}

export function watchCommand(): Command {
  const cmd = new Command('watch')
    .description(
      "Keep a sheet's companies under watch: one monitoring list holds exactly the sheet's matched companies, and each change is appended to an events sheet",
    )
    .argument('[file]', 'a .csv or .xlsx file (or use --spreadsheet)')
    .option('--spreadsheet <id-or-address>', 'Google spreadsheet: its ID or its address (https://docs.google.com/spreadsheets/d/…)')
    .option('--sheet <name>', 'sheet (tab) name; the first sheet by default')
    .option('--column <header>', 'header of the column holding registry codes, VAT numbers or names (found automatically otherwise)')
    .option('--list <name>', 'monitoring list to keep (default: named after the spreadsheet and sheet)')
    .option('--events-sheet <name>', 'sheet the changes are appended to (a file gets "<name> - <this>.csv" beside it)', 'Company changes')
    .option('--once', 'one pass (enrich new rows, sync the list, read new changes), then exit')
    .addOption(intervalOption('seconds between passes'))
    .addOption(summaryLangOption('language of labels, summaries and the digest'))
    .addOption(
      wholeNumberOption(
        '--max-billed-queries <n>',
        'refuse to enrich new rows, before anything is sent, when that would bill more unique queries than this',
        1,
      ),
    )
    .option('--digest <file>', 'write one digest of the pass\'s changes for chat (Slack mrkdwn) to this file, or "-" for stdout')
    .addOption(wholeNumberOption('--digest-lines <n>', 'at most this many lines of companies and changes in the digest', 2).default(20))
    .addOption(csvFormulasOption())
    .addOption(stateDirOption('where the list, the ledger and paid answers are remembered'));
  addWebhookOptions(cmd, 'receive changes as signed webhooks on a local port instead of polling');
  addApiOptions(cmd);
  addGoogleOptions(cmd);
  cmd.action(async (file: string | undefined, flags: WatchFlags) => await runWatch(file, flags));
  return cmd;
}

const say = (line: string) => process.stderr.write(line + '\n');
const out = (line: string) => process.stdout.write(line + '\n');

/** What one watch works with, from its start to its end. */
interface WatchRun {
  flags: WatchFlags;
  /** The watched sheet or file as opened at the start (each later pass opens it afresh). */
  first: Table;
  openWatched: () => Promise<Table>;
  listName: string;
  externalRef: string;
  stateDir: string;
  pending: PendingChanges;
  writer: RowRecordingWriter;
  client: CompanyDataClient;
  opened: Awaited<ReturnType<typeof openClient>>;
  stop: AbortController;
}

/** Opens the sheet, the events sheet and the client; the watch then runs until --once is done or it is stopped. */
async function runWatch(file: string | undefined, flags: WatchFlags): Promise<void> {
  requireWebhookSecret(flags);
  if (flags.webhook && flags.digest) throw new Error('digest: applies to polling; with --webhook each change arrives on its own');
  const spreadsheetId = flags.spreadsheet ? spreadsheetIdOf(flags.spreadsheet) : undefined;
  const target: WatchTarget = spreadsheetId
    ? { kind: 'google', spreadsheetId, ...(flags.sheet ? { sheet: flags.sheet } : {}) }
    : { kind: 'file', name: basename(file ?? ''), ...(flags.sheet ? { sheet: flags.sheet } : {}) };
  const stateDir = flags.stateDir ?? defaultStateDir();
  const openWatched = () =>
    openTable({ file, spreadsheet: spreadsheetId, sheet: flags.sheet, mustExist: true, csvFormulas: flags.csvFormulas }, flags);
  // The table is opened afresh each pass: a file read once is cached, and a colleague edits between passes.
  const first = await openWatched();
  const eventsTable = spreadsheetId
    ? await openTable({ spreadsheet: spreadsheetId, sheet: flags.eventsSheet }, flags)
    : await openTable({ file: eventsFileFor(file!, flags.eventsSheet), csvFormulas: flags.csvFormulas }, flags);
  // Changes read but not yet written into their rows wait here, so a kill between the two loses none.
  const pending = new PendingChanges(stateDir, first.id);
  const writer = new RowRecordingWriter(pending, {
    table: eventsTable,
    // A Google spreadsheet gets the sheet, with its header, in one request when it has none (a file: by its first save).
    createWhenMissing: true,
    lang: flags.lang,
    onProblem: (id, problem) => say(`${logText(id)}: ${problem}`),
    stateDir,
  });
  const opened = await openClient(flags, say, { lang: flags.lang });
  const client = opened.client as CompanyDataClient;
  const listName = flags.list ?? defaultListName(target);
  const run: WatchRun = {
    flags,
    first,
    openWatched,
    listName,
    externalRef: sheetExternalRef(target),
    stateDir,
    pending,
    writer,
    client,
    opened,
    stop: new AbortController(),
  };
  await watchUntilStopped(run);
}

/** The passes, one after another, until --once is done or Ctrl-C; what is stored is kept and closed either way. */
async function watchUntilStopped(run: WatchRun): Promise<void> {
  const { flags, writer, stop } = run;
  const onSignal = () => {
    say('Stopping after this step; what is stored is kept.');
    stop.abort('signal');
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  let rx: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  try {
    await writer.open();
    if (writer.created) say(`Added the sheet "${flags.eventsSheet}" for the changes.`);
    if (writer.stats.reconciled) say(`Reconciled ${writer.stats.reconciled} event(s) with the events sheet.`);
    let current = await enrichAndSyncList(run, run.first);
    if (flags.webhook) {
      rx = await startWebhookReceiver({
        writer,
        secrets: [flags.secret!],
        port: flags.port,
        host: flags.host,
        onEvent: (id, outcome) => say(`${logText(id)}: ${outcome}`),
      });
      say(`Listening for webhooks on ${rx.url} (Ctrl-C to stop).`);
    }
    for (;;) {
      if (!flags.webhook) await pollChanges(run, current.listId);
      reportRows(await applyRows(run, current));
      if (flags.once || stop.signal.aborted) break;
      await systemClock.sleep(flags.interval * 1000, stop.signal);
      if (stop.signal.aborted) break;
      current = await enrichAndSyncList(run, await run.openWatched());
    }
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    await rx?.close();
    await writer.close();
    run.pending.close();
    await run.opened.close();
  }
}

/** One pass: enrich the sheet's new rows, then make the monitoring list hold exactly its matched companies. */
async function enrichAndSyncList(run: WatchRun, table: Table): Promise<{ listId: string; table: Table; header: string[] }> {
  const { flags, client } = run;
  // A Google sheet is remembered as enrich reads and writes it: its companies are then known without
  // reading the whole sheet once more (a request against Google's quota), unless it changed meanwhile.
  const seen = table.readColumns ? new SeenTable(table) : undefined;
  const report = await enrichForWatch(run, seen ?? table);
  if (report.rowsInScope > 0) for (const line of formatReport(report)) out(line);
  else out(`Every row is enriched already (nothing billed). Key column: ${report.keyColumn}`);
  if (report.errors) process.exitCode = 2;
  const { header, rows } = seen?.seen() ?? (await table.read());
  const codes = matchedCodes(header, rows, findKeyColumn(header, flags.column));
  // The events sheet made just now (before any list sync of this sheet, as every watch makes it): no earlier
  // watch made a list to find, unless the list was named by the user, who may have made it elsewhere.
  const firstWatch = run.writer.created && !flags.list && table === run.first;
  const { listName, externalRef, stateDir } = run;
  const sync = await syncList({ client, codes, listName, externalRef, stateDir, tableId: table.id, firstWatch });
  out(listLine(sync));
  for (const i of sync.invalid) say(`${i.registry_code}: not put under watch (${i.reason || 'refused by the service'})`);
  return { listId: sync.listId, table, header };
}

/** Enrich of the watch's fields over the rows not enriched yet; a failed run's report is printed before its error. */
async function enrichForWatch(run: WatchRun, table: Table): Promise<EnrichReport> {
  const { flags } = run;
  try {
    return await enrichTable({
      table,
      client: run.client,
      ...(flags.column ? { column: flags.column } : {}),
      fields: WATCH_FIELDS,
      mode: 'missing',
      // Saved once a minute while it runs, not every 10 s: each save of a Google sheet is a read before, the
      // writes and a read after against Google's 60 a minute, and what is paid for is kept in the state
      // folder as it arrives, so a killed pass loses nothing (docs/decisions/watch.md, "The events sheet").
      flushEveryMs: WATCH_SAVE_EVERY_MS,
      lang: flags.lang,
      stateDir: run.stateDir,
      maxAgeDays: DEFAULT_MAX_AGE_DAYS,
      ...(flags.maxBilledQueries ? { maxBilledQueries: flags.maxBilledQueries } : {}),
      ...(run.opened.offline ? { service: 'offline-sandbox' } : {}),
      signal: run.stop.signal,
    });
  } catch (err) {
    const failed = reportOfFailedRun(err);
    if (failed) for (const line of formatReport(failed)) out(line);
    throw err;
  }
}

/** Reads the list's new changes into the events sheet, and writes the digest of those appended now. */
async function pollChanges(run: WatchRun, listId: string): Promise<void> {
  const { flags, writer, client } = run;
  const polled: unknown[] = [];
  const appended = new Set<string>();
  const events: EventsClient = {
    // Only this list's changes: the account may watch other companies for other purposes.
    iterateEvents: (input) => tap(client.iterateEvents({ ...input, list_id: listId }), polled),
    iterateMatches: () => {
      throw new Error('watch reads monitoring changes only');
    },
  };
  const before = { ...writer.stats };
  await pollEventsToSheet({
    client: events,
    writer,
    once: true,
    signal: run.stop.signal,
    onEvent: (eventId, outcome) => {
      if (outcome === 'appended') appended.add(eventId);
      else if (outcome !== 'duplicate') say(`${logText(eventId)}: ${outcome}`);
    },
  });
  out(
    `Changes appended to "${flags.eventsSheet}": ${writer.stats.appended - before.appended}; already stored: ${writer.stats.duplicates - before.duplicates}`,
  );
  if (!flags.digest) return;
  const fresh = polled.filter((e) => appended.has(String((e as { id?: unknown }).id)));
  const d = buildDigest(fresh, { lang: flags.lang, maxLines: flags.digestLines });
  if (flags.digest === '-') {
    if (d.text) out(d.text);
  } else writeFileSync(flags.digest, d.text ? d.text + '\n' : '');
}

/** The changes waiting (read by a poll or received as webhooks) into their rows. */
async function applyRows(run: WatchRun, at: { table: Table; header: string[] }) {
  const waiting = run.pending.waiting();
  const rows = await new RowChangeWriter(at.table, {
    lang: run.flags.lang,
    ...(run.flags.column ? { column: run.flags.column } : {}),
  }).apply(waiting, at.header);
  run.pending.settle(waiting.map((e) => String((e as { id?: unknown }).id)));
  return rows;
}

function reportRows(rows: Awaited<ReturnType<typeof applyRows>>): void {
  if (rows.changes)
    out(
      `Rows updated: ${rows.rows}${rows.notInSheet ? `; changes of companies no longer in the sheet (events sheet only): ${rows.notInSheet}` : ''}${rows.restored ? `; rows put right after a move: ${rows.restored}` : ''}`,
    );
}

/** The events as they pass, kept for the digest. */
async function* tap(source: AsyncIterable<unknown>, into: unknown[]): AsyncGenerator<unknown> {
  for await (const e of source) {
    into.push(e);
    yield e;
  }
}

/**
 * The events writer, recording each event for its rows before storing it: a poll moves its cursor, and a
 * webhook is answered, only after acceptMany (accept goes through it), so an event is in the pending file
 * before it can be lost.
 */
class RowRecordingWriter extends EventSheetWriter {
  constructor(
    private readonly pending: PendingChanges,
    options: ConstructorParameters<typeof EventSheetWriter>[0],
  ) {
    super(options);
  }

  override acceptMany(events: Parameters<EventSheetWriter['acceptMany']>[0]): ReturnType<EventSheetWriter['acceptMany']> {
    this.pending.add(events.filter((e) => (e as { type?: unknown }).type === 'monitoring.change'));
    return super.acceptMany(events);
  }
}
