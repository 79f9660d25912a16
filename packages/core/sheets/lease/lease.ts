import type { HeldLock, SheetsClock } from '../ports';
import { newStopper, type Stopper } from '../../web-free';
import { leaseSheetName, type LeaseRecord, type LeaseSheets } from './port';

/**
 * How long a lease holds, and how the doors' clocks are trusted. Defaults: held 2 minutes, renewed every
 * 30 s; a holder stops starting writes and paid requests 30 s before its lease ends (room for those in
 * flight); a contender takes a lease over only once its stored end is 30 s behind the contender's own
 * clock (the doors' clocks may differ by that much). A crashed holder's sheet is free after 2.5 minutes.
 */
export interface SheetLeaseOptions {
  clock: SheetsClock;
  /** Who takes it, for the messages of others: "company-data enrich (host, pid 123)". */
  who: string;
  ttlMs?: number;
  renewEveryMs?: number;
  /** The holder stops this long before its lease ends. */
  stopBeforeMs?: number;
  /** How far two doors' clocks may be apart. */
  maxSkewMs?: number;
  /**
   * Renew on a timer while the run goes on (the clock's sleep); default true. Apps Script, whose sleep
   * blocks, passes false: the lease then renews when the writer checks it (before each save).
   */
  background?: boolean;
  random?: () => number;
  /** Where this holder runs, stored in its record (the CLI: host and pid). */
  origin?: string;
  /** The door knows the holder of a lease of this origin is gone (the CLI: same host, its process ended): free at once. */
  gone?(origin: string): boolean;
}

const DEFAULTS = { ttlMs: 120_000, renewEveryMs: 30_000, stopBeforeMs: 30_000, maxSkewMs: 30_000 };

/** Attempts at taking a lease that keeps changing hands under us, before saying it is busy. */
const MAX_TAKES = 5;

/**
 * Holders of this process that ended without deleting their lease sheet (the delete refused: edit access
 * withdrawn mid-run, Google failing). Their runs are over, so their leases are free to this process at
 * once rather than when they expire: a rerun after the sharing is fixed goes ahead.
 */
const endedHere = new Set<string>();
const MAX_ENDED = 1000;

/** The lease is held by another run: a door that waits its turn (n8n's Write Events to Rows) tries again. */
export class LeaseBusyError extends Error {
  constructor(
    message: string,
    /** When the holder's lease ends by itself if it is not renewed (milliseconds since the epoch). */
    readonly endsAt: number,
  ) {
    super(message);
    this.name = 'LeaseBusyError';
  }
}

/** A lease held: a lock the writer checks before each write and each paid request. */
export interface SheetLease extends HeldLock {
  /** The lease sheet's title. */
  readonly name: string;
  lost(): Error | undefined;
  check(): Promise<void>;
}

/**
 * Takes the lease of one sheet, or throws an error naming who holds it. Never waits for a live lease.
 *   1. create the lease sheet with our record: made → held.
 *   2. it is there: read it (the clock read BEFORE the read: a record read after that moment is at
 *      least that fresh). Ours (an earlier attempt whose answer was lost) → held. Live → busy.
 *      Expired by its own stored end, plus the clocks' skew → delete that very sheet by its id (of
 *      several contenders one deletes it, the others find it gone), then back to 1, where again only
 *      one contender makes it. Cells a person edited (no record) → refused, naming the sheet to delete.
 * The holder renews by writing its record into ITS sheet by id: a sheet deleted (a takeover, a user)
 * is never written again, and the holder learns it lost.
 */
export async function takeSheetLease(sheets: LeaseSheets, sheetTitle: string, label: string, o: SheetLeaseOptions): Promise<SheetLease> {
  const opts = { ...DEFAULTS, ...o };
  const name = leaseSheetName(sheetTitle);
  const holder = randomId(opts.random ?? Math.random);
  for (let attempt = 0; ; attempt++) {
    const start = opts.clock.now();
    const record: LeaseRecord = {
      holder,
      who: opts.who,
      takenAt: start,
      renewedAt: start,
      expiresAt: start + opts.ttlMs,
      ...(opts.origin ? { origin: opts.origin } : {}),
    };
    const id = await sheets.create(name, record);
    if (id !== undefined) return new HeldSheetLease(sheets, name, label, id, record, opts);
    const seenAt = opts.clock.now();
    const slot = await sheets.read(name);
    if (!slot) continue; // released meanwhile
    const r = slot.record;
    if (r?.holder === holder) return new HeldSheetLease(sheets, name, label, slot.id, r, opts);
    if (!r) throw new Error(unreadable(label, name));
    const over = seenAt > r.expiresAt + opts.maxSkewMs || endedHere.has(r.holder) || (!!r.origin && !!opts.gone?.(r.origin));
    if (!over || attempt >= MAX_TAKES) throw new LeaseBusyError(busy(label, r, opts), r.expiresAt + opts.maxSkewMs);
    // False: another contender removed it first. Either way, try to make it again.
    if (await sheets.remove(slot.id)) endedHere.delete(r.holder);
  }
}

type Optional = 'random' | 'background' | 'origin' | 'gone';
type Opts = Required<Omit<SheetLeaseOptions, Optional>> & Pick<SheetLeaseOptions, Optional>;

class HeldSheetLease implements SheetLease {
  private lostError: Error | undefined;
  private released = false;
  private renewing: Promise<void> | undefined;
  private readonly wake: Stopper | undefined;
  private readonly loop: Promise<void> | undefined;

  constructor(
    private readonly sheets: LeaseSheets,
    readonly name: string,
    private readonly label: string,
    private readonly id: string,
    private record: LeaseRecord,
    private readonly o: Opts,
  ) {
    if (o.background !== false) {
      this.wake = newStopper();
      this.loop = this.keepAlive(this.wake.signal);
    }
  }

  /** Lost when a renewal found its sheet gone or came too late, or when it was not renewed in time. */
  lost(): Error | undefined {
    if (!this.lostError && !this.released && this.o.clock.now() >= this.record.expiresAt - this.o.stopBeforeMs)
      this.lostError = new Error(lostText(this.label, this.name, 'it could not be renewed in time'));
    return this.lostError;
  }

  /** Before a write: renews when due (without background renewal), then throws if lost. */
  async check(): Promise<void> {
    if (this.o.background === false && this.o.clock.now() >= this.record.renewedAt + this.o.renewEveryMs) await this.renew();
    const e = this.lost();
    if (e) throw e;
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    this.wake?.abort();
    await this.loop;
    await this.renewing;
    if (this.lostError) return;
    // A delete that fails leaves the lease to expire by itself (or to this process's next run): the run's own outcome stands.
    const removed = await this.sheets.remove(this.id).catch(() => undefined);
    if (removed === undefined && endedHere.size < MAX_ENDED) endedHere.add(this.record.holder);
  }

  private async keepAlive(signal: AbortSignal): Promise<void> {
    while (!this.released && !this.lostError) {
      await this.o.clock.sleep(this.o.renewEveryMs, signal);
      if (this.released) return;
      await this.renew();
    }
  }

  /** One renewal at a time; it counts only when its answer came before the lease it renews ended. */
  private renew(): Promise<void> {
    this.renewing ??= this.renewOnce().finally(() => (this.renewing = undefined));
    return this.renewing;
  }

  private async renewOnce(): Promise<void> {
    if (this.lost()) return;
    const start = this.o.clock.now();
    const next: LeaseRecord = { ...this.record, renewedAt: start, expiresAt: start + this.o.ttlMs };
    // A failed renewal (Google failing past its retries) leaves the lease to lapse unless the next one lands.
    const ok = await this.sheets.renew(this.id, next).catch(() => undefined);
    if (ok === false) this.lostError = new Error(lostText(this.label, this.name, 'its lock sheet was deleted or taken over'));
    else if (ok && this.o.clock.now() < this.record.expiresAt) this.record = next;
    else if (ok) this.lostError = new Error(lostText(this.label, this.name, 'its renewal came after it ended'));
  }
}

function randomId(random: () => number): string {
  let s = '';
  while (s.length < 16) s += Math.floor(random() * 36).toString(36);
  return s;
}

function iso(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d+Z$/, 'Z');
}

function busy(label: string, r: LeaseRecord, o: Opts): string {
  return (
    `lock: ${label} is being written by ${r.who || 'another run'} (since ${iso(r.takenAt)}); wait for it to finish. ` +
    `If that run has stopped, its lock ends by itself at ${iso(r.expiresAt + o.maxSkewMs)}.`
  );
}

function unreadable(label: string, name: string): string {
  return (
    `lock: ${label} has a lock sheet "${name}" whose cells were changed by hand, so whether a run is writing cannot be told. ` +
    `If no run is writing the sheet, delete the sheet "${name}" (it is hidden: View → Hidden sheets) and run again.`
  );
}

function lostText(label: string, name: string, why: string): string {
  return (
    `lock: the run stopped writing ${label} because its lock ("${name}") was lost: ${why}. ` +
    'What was paid for is kept: run again to finish.'
  );
}
