/**
 * Flags several commands share, each given its own help text by the command that adds it (the flags of
 * the service, Google and the written table are in config.ts, beside what reads them).
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { summaryLangs } from '@company-data/core/vocabulary';

/** An option taking a whole number of `min` or more; any other value is refused naming the flag. */
export function wholeNumberOption(flags: string, help: string, min: number): Option {
  const option = new Option(flags, help);
  return option.argParser((v: string) => {
    if (!/^\d+$/.test(v) || Number(v) < min) throw new InvalidArgumentError(`${option.name()}: must be a whole number of ${min} or more`);
    return Number(v);
  });
}

/** --interval, for the commands that repeat their pass until stopped (events-to-sheet, watch). */
export function intervalOption(help: string): Option {
  return wholeNumberOption('--interval <seconds>', help, 1).default(300);
}

/** --lang, for the commands that write summaries into a sheet (events-to-sheet, watch). */
export function summaryLangOption(help: string): Option {
  return new Option('--lang <lang>', help).choices(summaryLangs).default('en');
}

/** --state-dir: the state folder, where each command keeps what it remembers between runs. */
export function stateDirOption(help: string): Option {
  return new Option('--state-dir <dir>', help).env('COMPANY_DATA_STATE_DIR');
}

/** --webhook, --port, --host and --secret: the signed-webhook receiver's flags (events-to-sheet, watch). */
export function addWebhookOptions(cmd: Command, what: string): Command {
  return cmd
    .option('--webhook', what)
    .addOption(wholeNumberOption('--port <n>', 'webhook port', 0).default(8787))
    .option('--host <host>', 'webhook listen address', '127.0.0.1')
    .addOption(
      new Option('--secret <secret>', 'webhook signing secret (prefer the environment variable)').env('COMPANY_DATA_WEBHOOK_SECRET'),
    );
}

/** The secret --webhook cannot work without, named before anything starts. */
export function requireWebhookSecret(flags: { webhook?: boolean; secret?: string }): void {
  if (flags.webhook && !flags.secret)
    throw new Error('secret: --webhook needs the signing secret (--secret or COMPANY_DATA_WEBHOOK_SECRET)');
}
