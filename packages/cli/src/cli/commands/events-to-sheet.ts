import { Command, InvalidArgumentError, Option } from 'commander';
import { pollEventsToSheet, startWebhookReceiver } from '../../sheets/event-sources';
import { EventSheetWriter } from '../../sheets/events-to-rows';
import { addApiOptions, addGoogleOptions, openClient, openTable, type ApiFlags, type GoogleFlags } from '../config';

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
  lang: 'et' | 'en';
}

const int = (flag: string, min: number) => (v: string) => {
  if (!/^\d+$/.test(v) || Number(v) < min) throw new InvalidArgumentError(`${flag}: must be a whole number of ${min} or more`);
  return Number(v);
};

export function eventsToSheetCommand(): Command {
  const cmd = new Command('events-to-sheet')
    .description('Append monitoring changes and saved-search matches to a sheet as rows, each event exactly once')
    .argument('[file]', 'a .csv or .xlsx file to append to (or use --spreadsheet)')
    .option('--spreadsheet <id>', 'Google spreadsheet ID')
    .option('--sheet <name>', 'sheet (tab) name; the first sheet by default')
    .option('--webhook', 'receive signed webhooks on a local port instead of polling')
    .addOption(new Option('--port <n>', 'webhook port').argParser(int('port', 0)).default(8787))
    .option('--host <host>', 'webhook listen address', '127.0.0.1')
    .addOption(new Option('--secret <secret>', 'webhook signing secret (prefer the environment variable)').env('COMPANY_DATA_WEBHOOK_SECRET'))
    .option('--search <id>', 'poll the matches of this saved search instead of monitoring events')
    .option('--once', 'poll until caught up, then stop (for cron)')
    .addOption(new Option('--interval <seconds>', 'seconds between polls').argParser(int('interval', 1)).default(300))
    .addOption(new Option('--lang <lang>', 'language of the summary column').choices(['et', 'en']).default('en'))
    .option('--ledger <file>', 'ledger file that records stored events (default in the state folder)')
    .addOption(new Option('--state-dir <dir>', 'where the ledger and lock are kept').env('COMPANY_DATA_STATE_DIR'));
  addApiOptions(cmd);
  addGoogleOptions(cmd);
  cmd.action(async (file: string | undefined, flags: EventsFlags) => {
    const say = (line: string) => process.stderr.write(line + '\n');
    const table = await openTable({ file, spreadsheet: flags.spreadsheet, sheet: flags.sheet }, flags);
    const writer = new EventSheetWriter({ table, lang: flags.lang, ...(flags.ledger ? { ledgerPath: flags.ledger } : {}), ...(flags.stateDir ? { stateDir: flags.stateDir } : {}) });
    await writer.open();
    if (writer.stats.reconciled) say(`Reconciled ${writer.stats.reconciled} event(s) with the sheet.`);
    for (const c of writer.compactions) say(`Ledger compacted: ${Math.round(c.bytesBefore / 1024)} KB -> ${Math.round(c.bytesAfter / 1024)} KB.`);
    const controller = new AbortController();
    const log = (id: string, outcome: string) => say(`${id}: ${outcome}`);
    try {
      if (flags.webhook) {
        if (!flags.secret) throw new Error('secret: --webhook needs the signing secret (--secret or COMPANY_DATA_WEBHOOK_SECRET)');
        const rx = await startWebhookReceiver({ writer, secrets: [flags.secret], port: flags.port, host: flags.host, onEvent: log });
        say(`Listening for webhooks on ${rx.url} (Ctrl-C to stop).`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await rx.close();
      } else {
        const opened = await openClient(flags, say);
        const stop = () => controller.abort();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
        try {
          await pollEventsToSheet({
            client: opened.client,
            writer,
            ...(flags.search ? { searchId: flags.search } : {}),
            once: !!flags.once,
            intervalMs: flags.interval * 1000,
            signal: controller.signal,
            onEvent: log,
            sleep: (ms) =>
              new Promise<void>((r) => {
                const t = setTimeout(r, ms);
                controller.signal.addEventListener('abort', () => (clearTimeout(t), r()), { once: true });
              }),
          });
        } finally {
          process.off('SIGINT', stop);
          process.off('SIGTERM', stop);
          await opened.close();
        }
      }
      const s = writer.stats;
      process.stdout.write(`Events appended: ${s.appended} (${s.rows} rows); already stored: ${s.duplicates}; not for sheets: ${s.ignored}\n`);
    } finally {
      await writer.close();
    }
  });
  return cmd;
}
