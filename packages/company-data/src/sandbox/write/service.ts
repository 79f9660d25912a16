import type { MonitoringCategory } from '@company-data/core/schemas/events';
import { VirtualTimer, type SandboxClock } from '../clock';
import { Rng } from '../dataset/prng';
import type { AppliedChange, CompanyPort, NewCompanyInput } from '../monitoring/company-port';
import { makeChange, randomChanges, type Change } from '../monitoring/detection';
import { ListStore, type MonitoringList } from '../monitoring/lists';
import { localDate, nextSlot, type RunSlot } from '../monitoring/schedule';
import { morningRun, SearchStore, type SavedSearch } from '../searches/searches';
import { defaultDeliverySettings, DeliveryEngine, type Delivery, type DeliverySettings } from './delivery';
import { ApiError } from '../http/errors';
import { DataDir } from './persist';
import { EventLog, eventNumber, type SandboxEvent } from './store';
import { newNonce, secretKeyFromSeed, signingSecret, type WebhookState } from './webhook-config';

/**
 * The write side of the sandbox: per-account lists, saved searches, webhook, events and deliveries, the
 * twice-daily runs on the virtual clock, and persistence to the data dir. Accounts are opaque ids given by
 * the auth layer (never the API key itself, which must not reach the data dir).
 */

export interface Account {
  lists: ListStore;
  searches: SearchStore;
  webhook?: WebhookState;
  log: EventLog;
}

export interface EventSettings extends DeliverySettings {
  /** Chance (0-1) that a monitored company changes in a scheduled run. */
  detectionRate: number;
}

export interface EventServiceOptions {
  clock: SandboxClock;
  companies: CompanyPort;
  seed?: number;
  dataDir?: string;
  /** Key from which webhook signing secrets are derived (default: derived from the seed). */
  secretKey?: Buffer;
  settings?: Partial<EventSettings>;
}

interface StateFile {
  version: 1;
  clock_now: number;
  last_run_at: number;
  counters: { event: number; delivery: number };
  accounts: Record<string, { lists: Record<string, MonitoringList>; searches: Record<string, SavedSearch>; webhook?: WebhookState }>;
}

type ReplayRecord = { type: 'change'; change: AppliedChange } | { type: 'register'; input: NewCompanyInput; on: string };

const STATE = 'state.json';
const EVENTS = 'events.jsonl';
const DELIVERIES = 'deliveries.jsonl';
const CHANGES = 'changes.jsonl';

export class EventService {
  readonly clock: SandboxClock;
  readonly companies: CompanyPort;
  readonly settings: EventSettings;
  readonly deliveries: DeliveryEngine;
  private readonly accounts = new Map<string, Account>();
  private readonly seed: number;
  private readonly secretKey: Buffer;
  private readonly secrets = new Map<string, string>();
  private readonly data?: DataDir;
  private readonly runTimer: VirtualTimer;
  private readonly rng: Rng;
  private counters = { event: 0, delivery: 0 };
  private lastRunAt: number;
  private saveTimer: NodeJS.Timeout | undefined;
  private readonly unsubscribeClock: () => void;

  constructor(opts: EventServiceOptions) {
    this.clock = opts.clock;
    this.companies = opts.companies;
    this.seed = opts.seed ?? 1;
    this.rng = new Rng(this.seed ^ 0xc4a9);
    this.secretKey = opts.secretKey ?? secretKeyFromSeed(this.seed);
    this.settings = { ...defaultDeliverySettings, detectionRate: 0.02, ...opts.settings };
    this.lastRunAt = this.clock.now();
    this.deliveries = new DeliveryEngine({
      clock: this.clock,
      settings: this.settings,
      seed: this.seed,
      target: (account) => {
        const w = this.accounts.get(account)?.webhook;
        return w?.enabled ? { url: w.url, secret: this.secretOf(w.nonce) } : null;
      },
      event: (account, id) => this.accounts.get(account)?.log.get(id),
      saved: (d) => this.data?.append(DELIVERIES, d),
      nextDeliveryNumber: () => {
        this.dirty();
        return ++this.counters.delivery;
      },
    });
    if (opts.dataDir) {
      this.data = new DataDir(opts.dataDir);
      this.load();
    }
    this.runTimer = new VirtualTimer(
      this.clock,
      () => nextSlot(this.lastRunAt).at,
      () => this.runDueSlots(),
    );
    this.runTimer.arm();
    // Runs made due by a clock move happen before the control call answers, so a test sees their events.
    this.unsubscribeClock = this.clock.onChange(() => this.runDueSlots());
    this.deliveries.wake();
  }

  /**
   * The delivery engine asks for the target of every waiting delivery each time it re-arms its timer
   * (once per new event), so the HMAC is computed once per webhook, not per delivery and scan.
   */
  private secretOf(nonce: string): string {
    let s = this.secrets.get(nonce);
    if (s === undefined) this.secrets.set(nonce, (s = signingSecret(this.secretKey, nonce)));
    return s;
  }

  account(id: string): Account {
    let a = this.accounts.get(id);
    if (!a) {
      a = { lists: new ListStore(), searches: new SearchStore(), log: new EventLog() };
      this.accounts.set(id, a);
    }
    return a;
  }

  today(): string {
    return localDate(this.clock.now());
  }

  /* ---- events ---- */

  private emit(account: string, type: SandboxEvent['type'], data: Record<string, unknown>, createdAt: number, id?: string): SandboxEvent {
    const event: SandboxEvent = { id: id ?? `evt_${++this.counters.event}`, type, created_at: new Date(createdAt).toISOString(), data };
    const a = this.account(account);
    a.log.append(event);
    this.data?.append(EVENTS, { account, event });
    this.dirty();
    if (a.webhook?.enabled) this.deliveries.create(account, event.id);
    return event;
  }

  /** One monitoring.change per account and change, naming every list of the account that reports it. */
  private report(changes: Change[], detectedAt: number): Map<string, string[]> {
    const emitted = new Map<string, string[]>();
    for (const change of changes) {
      for (const [id, a] of this.accounts) {
        const lists = a.lists.listsFor(change.registry_code, change.category, change.occurred_at);
        if (!lists.length) continue;
        const e = this.emit(
          id,
          'monitoring.change',
          {
            company: { registry_code: change.registry_code, name: change.name },
            lists,
            category: change.category,
            kind: change.kind,
            tone: change.tone,
            details: change.details,
            detected_at: new Date(detectedAt).toISOString(),
          },
          detectedAt,
        );
        let ids = emitted.get(id);
        if (!ids) emitted.set(id, (ids = []));
        ids.push(e.id);
      }
    }
    return emitted;
  }

  private apply(change: Change): void {
    const applied: AppliedChange = {
      registry_code: change.registry_code,
      kind: change.kind,
      category: change.category,
      details: change.details,
    };
    this.companies.applyChange(applied);
    this.data?.append(CHANGES, { type: 'change', change: applied } satisfies ReplayRecord);
  }

  /* ---- runs ---- */

  private monitoredCodes(): Set<string> {
    const out = new Set<string>();
    for (const a of this.accounts.values()) for (const c of a.lists.codes()) out.add(c);
    return out;
  }

  /** Detection at a time: random changes of monitored companies, applied and reported. */
  detect(at: number): number {
    const changes = randomChanges(this.monitoredCodes(), this.companies, this.seed, at, this.settings.detectionRate, localDate(at));
    for (const c of changes) this.apply(c);
    let n = 0;
    for (const ids of this.report(changes, at).values()) n += ids.length;
    return n;
  }

  /** Morning run of every saved search of every account; returns the number of events. */
  runSearches(at: number, date: string): number {
    let n = 0;
    for (const [id, a] of this.accounts) {
      for (const s of a.searches.all()) {
        if (s.created_at > at) continue;
        for (const part of morningRun(s, date, this.companies.all(), (code) => this.companies.get(code))) {
          this.emit(id, 'search.matches', part.data, at, part.id);
          n++;
        }
        this.dirty();
      }
    }
    return n;
  }

  runSlot(slot: RunSlot): { detection_events: number; search_events: number } {
    const detection_events = this.detect(slot.at);
    const search_events = slot.morning ? this.runSearches(slot.at, slot.date) : 0;
    return { detection_events, search_events };
  }

  /** Every scheduled run that became due, in order (an advance of three days makes six runs). */
  private runDueSlots(): void {
    const now = this.clock.now();
    for (let slot = nextSlot(this.lastRunAt); slot.at <= now; slot = nextSlot(this.lastRunAt)) {
      this.runSlot(slot);
      this.lastRunAt = slot.at;
      this.dirty();
    }
  }

  nextRun(): RunSlot {
    return nextSlot(this.lastRunAt);
  }

  /* ---- control helpers ---- */

  /** A change of one company now (sandbox control): applied to the data and reported at once. */
  createChange(
    account: string,
    input: { registry_code: string; category: MonitoringCategory; kind?: string; details?: Record<string, unknown> },
  ) {
    const c = this.companies.get(input.registry_code);
    if (!c) throw new ApiError(404, 'not_found', `registry_code ${input.registry_code} does not exist`, 'registry_code');
    const now = this.clock.now();
    const change = makeChange(c, input.category, input.kind, this.rng, localDate(now), now, input.details);
    if (!change)
      throw new ApiError(409, 'change_not_possible', `no ${input.category} change applies to ${c.registry_code} now`, 'category');
    this.apply(change);
    const events = this.report([change], now).get(account) ?? [];
    return { change: { ...change, occurred_at: new Date(change.occurred_at).toISOString() }, events };
  }

  registerCompanies(inputs: NewCompanyInput[]): string[] {
    const on = this.today();
    return inputs.map((input) => {
      const facts = this.companies.register(input, on);
      this.data?.append(CHANGES, { type: 'register', input: { ...input, registry_code: facts.registry_code }, on } satisfies ReplayRecord);
      return facts.registry_code;
    });
  }

  createWebhook(account: string, url: string, enabled: boolean): { state: WebhookState; secret?: string } {
    const a = this.account(account);
    const now = this.clock.now();
    let secret: string | undefined;
    if (!a.webhook) {
      a.webhook = { url, enabled, nonce: newNonce(), created_at: now, updated_at: now };
      secret = this.secretOf(a.webhook.nonce);
    } else {
      Object.assign(a.webhook, { url, enabled, updated_at: now });
    }
    this.dirty();
    this.deliveries.wake();
    return { state: a.webhook, secret };
  }

  resetWebhook(account: string): void {
    delete this.account(account).webhook;
    this.dirty();
  }

  testEvent(account: string): { event: SandboxEvent; delivery?: Delivery } {
    const a = this.account(account);
    if (!a.webhook) throw new ApiError(409, 'webhook_not_set', 'set a webhook with PUT /webhook first');
    if (!a.webhook.enabled) throw new ApiError(409, 'webhook_disabled', 'the webhook is disabled; enable it with PUT /webhook');
    const now = this.clock.now();
    const event = this.emit(account, 'webhook.test', { message: 'Test event from the Company Data sandbox' }, now);
    const delivery = this.deliveries.list(account).find((d) => d.event_id === event.id);
    return { event, delivery };
  }

  /** Marks state.json for writing; writes are batched so a burst of changes costs one write. */
  dirty(): void {
    if (!this.data || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.save(), 50);
    this.saveTimer.unref?.();
  }

  save(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    if (!this.data) return;
    const state: StateFile = {
      version: 1,
      clock_now: this.clock.now(),
      last_run_at: this.lastRunAt,
      counters: this.counters,
      accounts: Object.fromEntries(
        [...this.accounts].map(([id, a]) => [id, { lists: a.lists.lists, searches: a.searches.searches, webhook: a.webhook }]),
      ),
    };
    this.data.writeJsonAtomic(STATE, state);
  }

  private load(): void {
    const data = this.data!;
    for (const r of data.readLines<ReplayRecord>(CHANGES)) {
      if (r.type === 'change') this.companies.applyChange(r.change);
      else if (!this.companies.get(r.input.registry_code!)) this.companies.register(r.input, r.on);
    }
    const state = data.readJson<StateFile>(STATE);
    if (state) {
      if (this.clock.now() < state.clock_now) this.clock.setTo(state.clock_now);
      this.lastRunAt = state.last_run_at;
      this.counters = { ...state.counters };
      for (const [id, s] of Object.entries(state.accounts)) {
        const a = this.account(id);
        Object.assign(a.lists.lists, s.lists);
        Object.assign(a.searches.searches, s.searches);
        if (s.webhook) a.webhook = s.webhook;
      }
    }
    for (const { account, event } of data.readLines<{ account: string; event: SandboxEvent }>(EVENTS)) {
      this.account(account).log.append(event);
      const n = eventNumber(event.id);
      if (n !== null && n > this.counters.event) this.counters.event = n;
    }
    const latest = new Map<string, Delivery>();
    for (const d of data.readLines<Delivery>(DELIVERIES)) latest.set(d.id, d);
    for (const d of latest.values()) {
      this.deliveries.restore(d);
      const n = Number(d.id.slice(4));
      if (n > this.counters.delivery) this.counters.delivery = n;
    }
    data.rewriteLines(DELIVERIES, [...latest.values()]);
  }

  async close(): Promise<void> {
    this.runTimer.close();
    this.unsubscribeClock();
    await this.deliveries.close();
    this.save();
    this.data?.close();
  }
}
