import { Command } from 'commander';
import { pollEventsToSheet, startWebhookReceiver } from '../../sheets/event-sources';
import { EventSheetWriter } from '../../sheets/events-to-rows';
import type { CsvFormulas } from '../../sheets/csv-table';
import {
  addApiOptions,
  addGoogleOptions,
  csvFormulasOption,
  openClient,
  openTable,
  type ApiFlags,
  type GoogleFlags,
  type OpenedClient,
} from '../config';
import { addWebhookOptions, intervalOption, requireWebhookSecret, stateDirOption, summaryLangOption, wholeNumberOption } from '../options';
import type { SummaryLang } from '@company-data/core/vocabulary';

interface EventsFlags extends ApiFlags, GoogleFlags {
  spreadsheet?: string;
  sheet?: string;
  webhook?: boolean;
  port: number;
  host: string;
  secret?: string;
  search?: string;
  once?: boolean;
  interval: number;
  ledger?: string;
  stateDir?: string;
  lang: SummaryLang;
  timeout: number;
  csvFormulas: CsvFormulas;
}

/** How long a stop may take before the process exits anyway: whatever was acknowledged is already on disk. */
const STOP_GRACE_MS = 1_500;

/**
 * Text from outside (a delivery's claimed event id) as it goes into a log line: plain ids as they
 * are, anything else JSON-quoted, so a forged id cannot start a line of its own, move the cursor or
 * pass for an outcome ("evt_1: appended").
 */
export function logText(s: string): string {
  if (s.length <= 100 && /^[A-Za-z0-9_.-]+( [A-Za-z0-9_.-]+)*$/.test(s)) return s;
  return JSON.stringify(s.length > 100 ? `${s.slice(0, 100)}…` : s).replace(
    /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

export function eventsToSheetCommand(): Command {
  const cmd = eventsToSheetOptions(
    addWebhookOptions(
      new Command('events-to-sheet')
        .description('Append monitoring changes and saved-search matches to a sheet as rows, each event exactly once')
        .argument('[file]', 'a .csv or .xlsx file to append to (or use --spreadsheet)')
        .option('--spreadsheet <id-or-address>', 'Google spreadsheet: its ID or its address (https://docs.google.com/spreadsheets/d/…)')
        .option('--sheet <name>', 'sheet (tab) name; the first sheet by default'),
      'receive signed webhooks on a local port instead of polling',
    ),
  );
  addApiOptions(cmd);
  addGoogleOptions(cmd);
  cmd.action((file: string | undefined, flags: EventsFlags) => runEventsToSheet(file, flags));
  return cmd;
}

function eventsToSheetOptions(cmd: Command): Command {
  return cmd
    .option('--search <id>', 'poll the matches of this saved search instead of monitoring events')
    .option('--once', 'poll until caught up, then stop (for cron)')
    .addOption(intervalOption('seconds between polls'))
    .addOption(summaryLangOption('language of the summary column'))
    .option('--ledger <file>', 'ledger file that records stored events (default in the state folder)')
    .addOption(
      wholeNumberOption(
        '--timeout <seconds>',
        'with --once: stop after this many seconds in all, even if the service does not answer',
        1,
      ).default(600),
    )
    .addOption(csvFormulasOption())
    .addOption(stateDirOption('where the ledger is kept'));
}

type Say = (line: string) => void;

/** The events writer over the sheet, opened (its ledger settled with the sheet), with what opening did said. */
async function openWriter(file: string | undefined, flags: EventsFlags, say: Say): Promise<EventSheetWriter> {
  const table = await openTable({ file, spreadsheet: flags.spreadsheet, sheet: flags.sheet, csvFormulas: flags.csvFormulas }, flags);
  const writer = new EventSheetWriter({
    table,
    // Its events sheet is the one it is given with --sheet.
    tableField: 'sheet',
    lang: flags.lang,
    onProblem: (id, problem) => say(`${logText(id)}: ${problem}`),
    ...(flags.ledger ? { ledgerPath: flags.ledger } : {}),
    ...(flags.stateDir ? { stateDir: flags.stateDir } : {}),
  });
  await writer.open();
  if (writer.stats.reconciled) say(`Reconciled ${writer.stats.reconciled} event(s) with the sheet.`);
  for (const c of writer.compactions)
    say(`Ledger compacted: ${Math.round(c.bytesBefore / 1024)} KB -> ${Math.round(c.bytesAfter / 1024)} KB.`);
  return writer;
}

/**
 * One way to stop, whatever asks for it (Ctrl-C, SIGTERM, the --once deadline): the wait or the request in
 * flight is abandoned, the writer finishes the event it is storing, the process exits.
 */
function stopControl(flags: EventsFlags, say: Say) {
  const stop = new AbortController();
  const stopped = new Promise<void>((r) => stop.signal.addEventListener('abort', () => r(), { once: true }));
  const onSignal = () => stop.abort('signal');
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const deadline = flags.once && !flags.webhook ? setTimeout(() => stop.abort('deadline'), flags.timeout * 1000) : undefined;
  stop.signal.addEventListener('abort', () => {
    say(
      stop.signal.reason === 'deadline'
        ? `Stopping: --once did not finish within ${flags.timeout} s; events stored so far are kept.`
        : 'Stopping; events stored so far are kept.',
    );
    setTimeout(() => {
      say('Stopped before the sheet write in progress finished; the ledger settles it on the next start.');
      process.exit(1);
    }, STOP_GRACE_MS).unref();
  });
  const dispose = () => {
    clearTimeout(deadline);
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
  return { signal: stop.signal, stopped, dispose };
}

/** The totals, and what was written other than sent, on stdout. */
function printTotals(s: EventSheetWriter['stats']): void {
  const problems = [
    s.cut && `with cells cut: ${s.cut}`,
    s.unreadable && `unreadable (one row as received): ${s.unreadable}`,
    s.stubbed && `refused by the sheet (stub rows): ${s.stubbed}`,
    s.refused && `not written (no event id): ${s.refused}`,
  ].filter(Boolean);
  process.stdout.write(
    `Events appended: ${s.appended} (${s.rows} rows); already stored: ${s.duplicates}; not for sheets: ${s.ignored}\n` +
      (problems.length ? `Written other than sent (see the lines above): ${problems.join('; ')}\n` : ''),
  );
}

async function runEventsToSheet(file: string | undefined, flags: EventsFlags): Promise<void> {
  const say: Say = (line) => process.stderr.write(line + '\n');
  requireWebhookSecret(flags);
  const writer = await openWriter(file, flags, say);
  const log = (id: string, outcome: string) => say(`${logText(id)}: ${outcome}`);
  const stop = stopControl(flags, say);
  let rx: Awaited<ReturnType<typeof startWebhookReceiver>> | undefined;
  let opened: OpenedClient | undefined;
  try {
    if (flags.webhook) {
      rx = await startWebhookReceiver({ writer, secrets: [flags.secret!], port: flags.port, host: flags.host, onEvent: log });
      say(`Listening for webhooks on ${rx.url} (Ctrl-C to stop).`);
      await stop.stopped;
    } else {
      opened = await openClient(flags, say);
      const poll = pollEventsToSheet({
        client: opened.client,
        writer,
        ...(flags.search ? { searchId: flags.search } : {}),
        once: !!flags.once,
        intervalMs: flags.interval * 1000,
        signal: stop.signal,
        onEvent: log,
      });
      // A request the service never answers is not waited for once a stop is asked.
      await Promise.race([poll, stop.stopped]);
    }
    printTotals(writer.stats);
  } finally {
    stop.dispose();
    await rx?.close();
    await writer.close();
    // The client waits for requests in flight to end: not when a stop abandoned one.
    if (!stop.signal.aborted) await opened?.close();
  }
  if (stop.signal.reason === 'deadline') process.exitCode = 1;
  // Sockets of an abandoned request would keep the process alive.
  if (stop.signal.aborted) process.exit();
}
