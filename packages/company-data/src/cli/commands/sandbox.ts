import { Command, InvalidArgumentError, Option } from 'commander';
import { createStoredKey, readKeyFile, revokeStoredKey, type Plan } from '../../sandbox/http/keys';
import { DEFAULT_JITTER, DEFAULT_PER_QUERY_MS, LATENCY_BOUNDS } from '../../sandbox/latency';

const int = (name: string, min: number, max: number) => (v: string) => {
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new InvalidArgumentError(`${name} must be a whole number from ${min} to ${max}`);
  return n;
};
const collect = (v: string, prev: string[]) => [...prev, v];
const num = (name: string, min: number, max: number) => (v: string) => {
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max)
    throw new InvalidArgumentError(`${name} must be a number from ${min} to ${max}`);
  return n;
};
const rateLimit = (v: string): number | false => {
  if (v === 'off') return false;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 100_000)
    throw new InvalidArgumentError('rate-limit must be off or a whole number of requests per second from 1 to 100000');
  return n;
};

/** --data-dir may be written before or after the keys subcommand (the sandbox command has it too). */
function dirOf<T = object>(c: Command): T & { dataDir: string } {
  const o = c.optsWithGlobals<T & { dataDir?: string }>();
  if (!o.dataDir) throw new InvalidArgumentError('data-dir: is required for key commands');
  return o as T & { dataDir: string };
}

interface ServeFlags {
  port: number;
  host: string;
  key: string[];
  basicKey: string[];
  seed: number;
  companies: number;
  dataDir?: string;
  latencyMs: number;
  perQueryMs?: number;
  jitter?: number;
  rateLimit: number | false;
}

export function sandboxCommand(): Command {
  const cmd = new Command('sandbox')
    .description('Run the offline sandbox service (synthetic data, same interface as the real service)')
    .option('--port <port>', 'port to listen on', int('port', 0, 65535), 4010)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .addOption(
      new Option('--key <key>', 'accept this API key on the API plan (repeatable)')
        .argParser(collect)
        .default([], 'the keys kept in --data-dir, else a new one shown once'),
    )
    .addOption(new Option('--basic-key <key>', 'accept this API key on the basic plan (repeatable)').argParser(collect).default([], 'none'))
    .option('--seed <n>', 'dataset seed', int('seed', 0, 2 ** 31), 1)
    .option('--companies <n>', 'number of generated companies', int('companies', 1500, 2_000_000), 20_000)
    .option('--data-dir <dir>', 'keep key hashes and sandbox state here')
    .option(
      '--latency-ms <ms>',
      'act like a distant service: add this round trip to every request',
      num('latency-ms', ...LATENCY_BOUNDS.latency_ms),
      0,
    )
    .addOption(
      new Option('--per-query-ms <ms>', 'service time per lookup query (per request for other calls)')
        .argParser(num('per-query-ms', ...LATENCY_BOUNDS.per_query_ms))
        .default(undefined, `${DEFAULT_PER_QUERY_MS} with --latency-ms, else 0`),
    )
    .addOption(
      new Option('--jitter <fraction>', 'spread of the service time, 0 to 1')
        .argParser(num('jitter', ...LATENCY_BOUNDS.jitter))
        .default(undefined, String(DEFAULT_JITTER)),
    )
    .addOption(new Option('--rate-limit <n|off>', 'requests per second per key, or off').argParser(rateLimit).default(10))
    .action(serveSandbox);
  cmd.addCommand(keysCommand());
  return cmd;
}

/** The keys the sandbox accepts: the flags', else those kept in --data-dir, else a new one (shown once). */
async function sandboxKeys(flags: ServeFlags) {
  const keys = [
    ...flags.key.map((key) => ({ key, plan: 'api' as Plan })),
    ...flags.basicKey.map((key) => ({ key, plan: 'basic' as Plan })),
  ];
  let created: string | null = null;
  const stored = flags.dataDir ? readKeyFile(flags.dataDir).filter((k) => !k.revoked_at) : [];
  if (!keys.length && !stored.length) {
    if (flags.dataDir) created = createStoredKey(flags.dataDir, 'api', new Date()).key;
    else {
      const { newKey } = await import('../../sandbox/http/keys');
      created = newKey('api');
      keys.push({ key: created, plan: 'api' });
    }
  }
  return { keys, created, stored };
}

/** `sandbox`: starts the service, says where and with which keys, and stops on Ctrl+C. */
async function serveSandbox(flags: ServeFlags): Promise<void> {
  const { startSandbox } = await import('../../sandbox');
  const { keys, created, stored } = await sandboxKeys(flags);
  const t0 = Date.now();
  const latency = {
    latencyMs: flags.latencyMs,
    perQueryMs: flags.perQueryMs ?? (flags.latencyMs > 0 ? DEFAULT_PER_QUERY_MS : 0),
    jitter: flags.jitter ?? DEFAULT_JITTER,
  };
  const sb = await startSandbox({
    host: flags.host,
    port: flags.port,
    seed: flags.seed,
    companies: flags.companies,
    keys,
    dataDir: flags.dataDir,
    latency,
    rateLimit: flags.rateLimit,
  });
  const out = process.stdout;
  out.write(
    `Sandbox on ${sb.url} (seed ${flags.seed}, ${sb.dataset.companies.length} synthetic companies, ready in ${Date.now() - t0} ms)\n`,
  );
  if (created) out.write(`API key (shown once, only its hash is kept${flags.dataDir ? ` in ${flags.dataDir}` : ''}):\n  ${created}\n`);
  else out.write(`Keys: ${keys.length} from the command line, ${stored.length} in ${flags.dataDir ?? 'no data dir'}\n`);
  out.write(`Scenario fixtures: ${sb.url}/sandbox/fixtures   OpenAPI: ${sb.url}/openapi.json\n`);
  if (latency.latencyMs || latency.perQueryMs)
    out.write(
      `Latency: ${latency.latencyMs} ms round trip, ${latency.perQueryMs} ms per query ±${latency.jitter * 100}% (PUT ${sb.url}/sandbox/latency)\n`,
    );
  if (flags.rateLimit === false) out.write('Rate limit: off\n');
  const stop = async () => {
    await sb.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** `sandbox keys create|revoke|list`: the keys of a data dir (hashes only). */
function keysCommand(): Command {
  const keysCmd = new Command('keys').description('Create, revoke and list sandbox API keys in a data dir (hashes only)');
  keysCmd
    .command('create')
    .description('Create a key; it is printed once and only its hash is stored')
    .option('--data-dir <dir>', 'data dir of the sandbox (required)')
    .option(
      '--plan <plan>',
      'api or basic',
      (v) => {
        if (v !== 'api' && v !== 'basic') throw new InvalidArgumentError('plan must be api or basic');
        return v;
      },
      'api',
    )
    .action((_o: unknown, c: Command) => {
      const o = dirOf<{ plan: Plan }>(c);
      const { key, stored } = createStoredKey(o.dataDir, o.plan, new Date());
      process.stdout.write(`${stored.id} (${stored.plan} plan)\n${key}\nStore the key now: it cannot be shown again.\n`);
    });
  keysCmd
    .command('revoke <id>')
    .description('Revoke a key by its id (key_...); a running sandbox stops accepting it within a minute')
    .option('--data-dir <dir>', 'data dir of the sandbox (required)')
    .action((id: string, _o: unknown, c: Command) => {
      const o = dirOf(c);
      if (!revokeStoredKey(o.dataDir, id, new Date())) {
        process.stderr.write(`id: no active key ${id} in ${o.dataDir}\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`Revoked ${id}\n`);
    });
  keysCmd
    .command('list')
    .description('List key ids, plans and states (never the keys)')
    .option('--data-dir <dir>', 'data dir of the sandbox (required)')
    .action((_o: unknown, c: Command) => {
      const o = dirOf(c);
      for (const k of readKeyFile(o.dataDir))
        process.stdout.write(`${k.id}\t${k.plan}\t${k.revoked_at ? `revoked ${k.revoked_at}` : 'active'}\tcreated ${k.created_at}\n`);
    });
  return keysCmd;
}
