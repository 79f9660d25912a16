import type { Command } from 'commander';

/**
 * Runs a CLI command in-process and returns what it printed (commander errors throw instead of exiting).
 * onErr sees stderr as it is written, for commands that print something to act on while they run.
 */
export async function runCommand(
  command: Command,
  args: string[],
  opts: { onErr?: (soFar: string) => void } = {},
): Promise<{ out: string; err: string }> {
  let out = '';
  let err = '';
  const o = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((err += s), opts.onErr?.(err), true)) as typeof process.stderr.write;
  try {
    await command.exitOverride().parseAsync(args, { from: 'user' });
  } finally {
    process.stdout.write = o;
    process.stderr.write = e;
  }
  return { out, err };
}
