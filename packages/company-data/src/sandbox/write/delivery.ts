import type { SandboxClock } from '../clock';
import { VirtualTimer } from '../clock';
import { Rng } from '../dataset/prng';
import { ApiError } from '../http/errors';
import { postOnce, type PostOutcome } from './http-post';
import { signWebhook } from '@company-data/core/webhooks/sign';
import type { SandboxEvent } from './store';

/** Seconds to wait after failed attempt n (1-based) before attempt n+1 (spec, Delivery rules). */
export const RETRY_DELAYS_S = [60, 300, 900, 3600, 10_800, 21_600, 43_200] as const;
export const MAX_ATTEMPTS = RETRY_DELAYS_S.length + 1;

export type { DeliveryStatus } from '@company-data/core/vocabulary';
import type { DeliveryStatus } from '@company-data/core/vocabulary';

export interface Attempt {
  attempt: number;
  /** Virtual ms when the request was sent and when its outcome was known. */
  at: number;
  finished_at: number;
  status_code: number | null;
  error: string | null;
  /** An extra copy sent on purpose after a success (receivers must skip repeated ids). */
  duplicate?: boolean;
}

export interface Delivery {
  id: string;
  account: string;
  event_id: string;
  status: DeliveryStatus;
  attempts: number;
  next_attempt_at: number | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: number;
  finished_at: number | null;
  retry_of: string | null;
  log: Attempt[];
}

export interface DeliverySettings {
  /** Real ms a receiver has to answer (spec: 10 s; time scaling does not shorten it). */
  answerTimeoutMs: number;
  /** Attempts in flight at once, over all accounts. */
  concurrency: number;
  /** Chance (0-1) that a delivered event is sent again on purpose. */
  duplicateRate: number;
  /** How many extra copies when it is. */
  duplicateCopies: number;
}

export const defaultDeliverySettings: DeliverySettings = { answerTimeoutMs: 10_000, concurrency: 8, duplicateRate: 0, duplicateCopies: 1 };

export interface DeliveryHost {
  clock: SandboxClock;
  settings: DeliverySettings;
  seed: number;
  /** Where and how to send for the account now, or null while no webhook is set or it is disabled. */
  target(account: string): { url: string; secret: string } | null;
  event(account: string, id: string): SandboxEvent | undefined;
  /** Called after every change of a delivery (persistence). */
  saved(d: Delivery): void;
  nextDeliveryNumber(): number;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export function deliveryView(d: Delivery) {
  return {
    id: d.id,
    event_id: d.event_id,
    status: d.status,
    attempts: d.attempts,
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: iso(d.created_at),
    finished_at: iso(d.finished_at),
    retry_of: d.retry_of,
    log: d.log.map((a) => ({ ...a, at: iso(a.at), finished_at: iso(a.finished_at) })),
  };
}

/**
 * Sends events to the account's webhook on the virtual clock: one POST per attempt, retry schedule of the
 * spec, bounded concurrency. Attempts run on their own timers and sockets, never inside a request handler.
 */
export class DeliveryEngine {
  private readonly all = new Map<string, Delivery>();
  /** Deliveries still waiting for an attempt. */
  private readonly queued = new Map<string, Delivery>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly timer: VirtualTimer;
  private readonly rng: Rng;
  private closed = false;

  constructor(private readonly host: DeliveryHost) {
    this.rng = new Rng(host.seed ^ 0x5eed);
    this.timer = new VirtualTimer(
      host.clock,
      () => this.nextDue(),
      () => this.startDue(),
    );
  }

  /** Restores a delivery read from the data dir. */
  restore(d: Delivery): void {
    this.all.set(d.id, d);
    if (d.status === 'pending' || d.status === 'retry_scheduled') this.queued.set(d.id, d);
    else this.queued.delete(d.id);
  }

  create(account: string, eventId: string, retryOf: string | null = null): Delivery {
    const now = this.host.clock.now();
    const d: Delivery = {
      id: `dlv_${this.host.nextDeliveryNumber()}`,
      account,
      event_id: eventId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: now,
      last_status_code: null,
      last_error: null,
      created_at: now,
      finished_at: null,
      retry_of: retryOf,
      log: [],
    };
    this.all.set(d.id, d);
    this.queued.set(d.id, d);
    this.host.saved(d);
    this.timer.arm();
    return d;
  }

  get(account: string, id: string): Delivery {
    const d = this.all.get(id);
    if (!d || d.account !== account) throw new ApiError(404, 'not_found', `delivery_id ${id} does not exist`, 'delivery_id');
    return d;
  }

  /** A new delivery of the same event; only once the old one has finished (failed or delivered). */
  retry(account: string, id: string): Delivery {
    const d = this.get(account, id);
    if (d.status !== 'failed' && d.status !== 'delivered') {
      throw new ApiError(409, 'delivery_in_progress', `delivery ${id} is still ${d.status}; retry it once it has failed`, 'delivery_id');
    }
    if (!this.host.target(account)) throw new ApiError(409, 'webhook_disabled', 'set an enabled webhook with PUT /webhook first');
    return this.create(account, d.event_id, d.id);
  }

  list(account: string): Delivery[] {
    return [...this.all.values()]
      .filter((d) => d.account === account)
      .sort((a, b) => b.created_at - a.created_at || idNum(b.id) - idNum(a.id));
  }

  /** Re-evaluates due times, e.g. after a webhook was enabled. */
  wake(): void {
    this.timer.arm();
  }

  /** Resolves when no attempt is in flight (tests, close). */
  async idle(): Promise<void> {
    while (this.inFlight.size) await Promise.allSettled([...this.inFlight]);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.timer.close();
    await this.idle();
  }

  private nextDue(): number | null {
    if (this.closed || this.inFlight.size >= this.host.settings.concurrency) return null;
    let min: number | null = null;
    for (const d of this.queued.values()) {
      if (d.next_attempt_at === null || !this.host.target(d.account)) continue;
      if (min === null || d.next_attempt_at < min) min = d.next_attempt_at;
    }
    return min;
  }

  private startDue(): void {
    const now = this.host.clock.now();
    const due = [...this.queued.values()]
      .filter((d) => d.next_attempt_at !== null && d.next_attempt_at <= now && this.host.target(d.account))
      .sort((a, b) => a.next_attempt_at! - b.next_attempt_at!);
    for (const d of due) {
      if (this.inFlight.size >= this.host.settings.concurrency) break;
      this.queued.delete(d.id);
      const p = this.attempt(d).finally(() => {
        this.inFlight.delete(p);
        this.timer.arm();
      });
      this.inFlight.add(p);
    }
  }

  private async send(
    d: Delivery,
    target: { url: string; secret: string },
  ): Promise<{ outcome: PostOutcome; at: number; finished: number }> {
    const event = this.host.event(d.account, d.event_id);
    const at = this.host.clock.now();
    if (!event) return { outcome: { error: `event ${d.event_id} is no longer stored` }, at, finished: at };
    const body = JSON.stringify(event);
    // Receivers check the timestamp against their own clock, so it is real time even when the sandbox clock is moved.
    const headers = {
      'Content-Type': 'application/json',
      'User-Agent': 'Service-Webhooks/1.0',
      ...signWebhook({ secret: target.secret, body, eventId: event.id, timestamp: Math.floor(Date.now() / 1000) }),
    };
    const outcome = await postOnce(target.url, headers, body, this.host.settings.answerTimeoutMs);
    return { outcome, at, finished: this.host.clock.now() };
  }

  private async attempt(d: Delivery): Promise<void> {
    const target = this.host.target(d.account);
    if (!target) {
      this.queued.set(d.id, d);
      return;
    }
    const { outcome, at, finished } = await this.send(d, target);
    const ok = 'status' in outcome && outcome.status >= 200 && outcome.status < 300;
    d.attempts++;
    d.last_status_code = 'status' in outcome ? outcome.status : null;
    d.last_error = ok ? null : failureText(outcome);
    d.log.push({ attempt: d.attempts, at, finished_at: finished, status_code: d.last_status_code, error: d.last_error });
    if (ok) {
      d.status = 'delivered';
      d.next_attempt_at = null;
      d.finished_at = finished;
    } else if (d.attempts >= MAX_ATTEMPTS) {
      d.status = 'failed';
      d.next_attempt_at = null;
      d.finished_at = finished;
    } else {
      d.status = 'retry_scheduled';
      d.next_attempt_at = finished + RETRY_DELAYS_S[d.attempts - 1]! * 1000;
      this.queued.set(d.id, d);
    }
    this.host.saved(d);
    if (ok) await this.duplicates(d, target);
  }

  /** Extra copies of a delivered event, as the real service may send: same id, same body, fresh signature. */
  private async duplicates(d: Delivery, target: { url: string; secret: string }): Promise<void> {
    const s = this.host.settings;
    if (s.duplicateRate <= 0 || !this.rng.chance(s.duplicateRate)) return;
    for (let i = 0; i < s.duplicateCopies && !this.closed; i++) {
      const { outcome, at, finished } = await this.send(d, target);
      d.log.push({
        attempt: d.attempts,
        at,
        finished_at: finished,
        status_code: 'status' in outcome ? outcome.status : null,
        error: 'error' in outcome ? outcome.error : null,
        duplicate: true,
      });
    }
    this.host.saved(d);
  }
}

function failureText(o: PostOutcome): string {
  if ('error' in o) return o.error;
  if (o.status >= 300 && o.status < 400) return `redirect ${o.status} (not followed)`;
  return `answered ${o.status}`;
}

function idNum(id: string): number {
  return Number(id.slice(id.indexOf('_') + 1)) || 0;
}
