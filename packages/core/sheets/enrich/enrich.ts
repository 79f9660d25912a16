import type { SendQuery } from '../../bulk-lookup';
import type { QueryReading } from '../../lookup';
import { PreflightError } from '../checks/preflight';
import { guardedTable } from '../lease/guarded-table';
import type { HeldLock } from '../ports';
import { isStreamed, type StreamedTable } from '../table/table';
import { firstPass, type FirstPass } from './first-pass';
import { writePlan, type Layout } from './layout';
import { Lookups } from './lookups';
import { defaultFields, summaryFields, type EnrichReport, type SheetsEnrichOptions } from './options';
import { RowEdits } from './row-edits';
import { isoSeconds, memoisedReadQuery } from './row-plan';
import { EnrichRun, type RowResult } from './run-state';
import { saveWholeTable } from './save-loop';
import { SheetsError } from '../errors';

/**
 * Enriches the rows of a table by bulk lookup, through the same pipeline as the library's bulkLookup
 * and the n8n Lookup (QueryDedupe, alreadyLookedUp, resolveLookups): a row is looked up unless it holds
 * a final answer for the key it holds NOW; each distinct query is billed once (the store of paid answers
 * is the pipeline's cache); a spending cap refuses before anything is sent. A streamed table (CSV) is
 * read twice row by row: plan while sending, then write again while the answers arrive; a whole table
 * is saved every saveEveryMs while running, each save written to the rows that hold the keys looked up,
 * wherever they are by then (a Google sheet others edit is read again before and after each save). The
 * store's progress makes a killed run resumable.
 */
export async function enrichSheet(opts: SheetsEnrichOptions): Promise<EnrichReport> {
  checkOptions(opts);
  // Taken before the table is read: a second run reading it meanwhile would bill the same rows again.
  const lock = opts.dryRun ? undefined : await opts.ports.locks?.acquire(opts.table);
  try {
    // A lock that can be lost (the sheet's lease) is checked before every write and every paid request.
    return await enrichLocked({ ...opts, table: guardedTable(opts.table, lock) }, lock);
  } finally {
    await lock?.release();
  }
}

function checkOptions(opts: SheetsEnrichOptions): void {
  for (const f of opts.fields ?? defaultFields)
    if (!(f in summaryFields))
      throw new SheetsError({
        code: 'unknown_field',
        field: 'fields',
        rule: `"${f}" is not a company summary field`,
        hint: `Choose from ${Object.keys(summaryFields).join(', ')}.`,
      });
  if (opts.maxBilledQueries !== undefined && !(Number.isInteger(opts.maxBilledQueries) && opts.maxBilledQueries >= 0))
    throw new SheetsError({
      code: 'invalid_billing_cap',
      field: 'maxBilledQueries',
      rule: 'must be a whole number of 0 or more',
      hint: 'Give the most unique queries a run may bill, as a whole number.',
    });
}

async function enrichLocked(opts: SheetsEnrichOptions, lock: HeldLock | undefined): Promise<EnrichReport> {
  const { clock } = opts.ports;
  const now = opts.now ?? (() => new Date(clock.now()));
  const mode = opts.mode ?? 'missing';
  const nowMs = now().getTime();
  const maxAgeMs = typeof mode === 'object' ? mode.olderThanDays * 86_400_000 : undefined;
  const run = new EnrichRun(opts, await openAnswers(opts, now), lock);
  const report = run.report;
  let L: Layout | undefined;
  const lookups = new Lookups(run, () => L!);
  const readMemo = memoisedReadQuery();
  lookups.startSections();

  // Without a spending cap the queries are sent while the table is still read (pass 1); with one, or a
  // table checked before paying (read whole first: the checks need every row the run writes), after it.
  const streamSend = opts.maxBilledQueries === undefined && !opts.dryRun && !opts.table.checkWrites;
  let pass: FirstPass;
  try {
    pass = await firstPass(run, lookups, readMemo, { maxAgeMs, nowMs, stream: streamSend, onLayout: (l) => (L = l) });
    report.keyColumn = pass.L.header[pass.L.keyCol]!;
    report.personColumns = pass.L.personColumns;
    report.uniqueQueries = lookups.dedupe.unique.size;
    await checkBeforePaying(run, pass);
  } catch (e) {
    // Nothing was paid for yet: the error carries no report of a failed run.
    return lookups.fail(e, false);
  }
  if (opts.dryRun) {
    await lookups.dryRun();
    return report;
  }
  // The cap (when given) is checked on every distinct query before anything is sent; pass 2 starts once it is passed.
  if (streamSend) lookups.send(pass.fresh);
  else await lookups.sendCapped(opts.maxBilledQueries);
  if (run.failure) return lookups.fail(run.failure.error, true);

  const edits = new RowEdits(run, pass.L, mode, maxAgeMs, nowMs, readMemo, isoSeconds(now()));
  for (const [k, n] of pass.sendRows) edits.sendRows.set(k, n);
  migrateFree(run, lookups, edits, pass);
  try {
    await secondPass(run, lookups, edits, pass, readMemo);
  } catch (e) {
    return lookups.fail(e, true);
  }
  lookups.countInto(edits.sendRows);
  // Every paid answer is in the table now; the progress is only needed when this did not finish.
  await run.answers.finish(report.interrupted);
  return report;
}

/** The store of this table's paid answers: the lookups' cache, and the progress that makes a killed run resumable. */
function openAnswers(opts: SheetsEnrichOptions, now: () => Date) {
  const { table, client } = opts;
  return opts.ports.answers({
    tableId: table.id,
    service: opts.service ?? client.serviceUrl ?? 'unknown',
    limit: 1,
    lang: opts.lang ?? client.lang,
    maxAgeDays: opts.maxAgeDays,
    now: () => now().getTime(),
  });
}

/** Check before paying: a save this run cannot make is found before anything is sent. */
async function checkBeforePaying(run: EnrichRun, pass: FirstPass): Promise<void> {
  const { table, dryRun } = run.opts;
  if (!table.checkWrites) return;
  run.report.checks = await table.checkWrites(writePlan(pass.L, pass.rowsToWrite, pass.clearsLegacy), { dryRun: !!dryRun });
  if (!dryRun && run.report.checks.some((c) => c.ok === false)) throw new PreflightError(run.report.checks);
}

/**
 * Pass 2: each row's cells from its query's outcome, written while the lookups run: a streamed table
 * row by row, a whole table in saves to the rows that hold each key when the save is made.
 */
async function secondPass(
  run: EnrichRun,
  lookups: Lookups,
  edits: RowEdits,
  pass: FirstPass,
  readMemo: (q: string) => QueryReading,
): Promise<void> {
  const everything = lookups.everything();
  const { table, ports } = run.opts;
  if (isStreamed(table)) await rewriteStreamed(table, run, lookups, edits, pass);
  else await saveWholeTable({ run, L: pass.L, edits, clock: ports.clock, snapshot: pass.snapshot, read: readMemo });
  await everything;
}

function rewriteStreamed(table: StreamedTable, run: EnrichRun, lookups: Lookups, edits: RowEdits, pass: FirstPass): Promise<void> {
  const done = (res: RowResult) => {
    run.report.keptCells += res.kept;
    return res.edits;
  };
  return table.rewrite((row, r) => {
    if (r === 0) return pass.L.headerWrites;
    const res = edits.editsFor(row, run.allOver);
    // Waiting for its answer: reading waits with it (the rows before are on their way to the new file).
    return res.waiting === undefined ? done(res) : lookups.outcomeOf(res.waiting).then(() => done(edits.editsFor(row, true)));
  }, pass.width);
}

/**
 * Rows the old version enriched for the key they hold move to the company_data_ columns when their
 * answer is free (the progress, or an earlier run's answer within --max-age); the others keep their old
 * columns until a run that pays for them (--mode all). Never billed: the cap is 0 for them.
 */
function migrateFree(run: EnrichRun, lookups: Lookups, edits: RowEdits, pass: FirstPass): void {
  if (!pass.legacyRows.size) return;
  const unique = lookups.dedupe.unique;
  const free = new Set(run.answers.free([...pass.legacyRows.keys()].filter((k) => !unique.has(k))));
  const moving: SendQuery[] = [];
  for (const [key, m] of pass.legacyRows) {
    if (!unique.has(key) && !free.has(key)) {
      run.report.legacyRows += m.rows;
      continue;
    }
    edits.migrating.add(key);
    edits.sendRows.set(key, (edits.sendRows.get(key) ?? 0) + m.rows);
    if (!unique.has(key)) moving.push({ key, send: m.send });
  }
  lookups.sendFree(moving);
}
