import { setTimeout as sleep } from 'node:timers/promises';
import { ApiError } from './http/errors';

export interface LatencySettings {
  /** Network round trip added to every API request, ms: half before the service sees it, half after it answered. */
  latencyMs: number;
  /** Service time per query of a lookup (per request for other operations), ms. */
  perQueryMs: number;
  /** Spread of the service time: 0.5 makes it anywhere from half to one and a half times perQueryMs × queries. */
  jitter: number;
}

export const noLatency: LatencySettings = { latencyMs: 0, perQueryMs: 0, jitter: 0 };
/** Service time and spread when only a round trip is given (--latency-ms): 100 queries take 25-75 ms. */
export const DEFAULT_PER_QUERY_MS = 0.5;
export const DEFAULT_JITTER = 0.5;

/** What PUT /sandbox/latency and the CLI flags accept. */
export const LATENCY_BOUNDS = { latency_ms: [0, 60_000], per_query_ms: [0, 1000], jitter: [0, 1] } as const;

/**
 * A distant service, reproduced: every API request waits half the round trip before the sandbox sees
 * it (and counts it against the rate limit), then the service time, then the other half. Only the
 * service time varies (the spread of a busy service), so requests reach the rate limit spaced as they
 * were sent while their answers come back in any order.
 */
export class LatencyModel {
  private s: LatencySettings;

  constructor(
    initial: Partial<LatencySettings> = {},
    private readonly random: () => number = Math.random,
  ) {
    this.s = { ...noLatency, ...initial };
  }

  get settings(): LatencySettings {
    return { ...this.s };
  }

  /** Half the round trip: the way to the service, or the way back of an error answer (no service work). */
  async halfTrip(): Promise<void> {
    if (this.s.latencyMs > 0) await sleep(this.s.latencyMs / 2);
  }

  /** The service's work on `queries` queries, then the way back. */
  async answer(queries: number): Promise<void> {
    const work = this.s.perQueryMs * Math.max(1, queries) * (1 + this.s.jitter * (2 * this.random() - 1));
    const ms = work + this.s.latencyMs / 2;
    if (ms > 0) await sleep(ms);
  }

  /** PUT /sandbox/latency: {latency_ms, per_query_ms, jitter}, each optional; unnamed fields keep their value. */
  update(body: unknown): LatencySettings {
    if (body === null || typeof body !== 'object' || Array.isArray(body))
      throw new ApiError(400, 'invalid_parameter', 'body must be a JSON object', 'body');
    const next = { ...this.s };
    for (const [name, value] of Object.entries(body as Record<string, unknown>)) {
      if (!(name in LATENCY_BOUNDS))
        throw new ApiError(400, 'invalid_parameter', `${name} is not a latency setting (latency_ms, per_query_ms, jitter)`, name);
      const [min, max] = LATENCY_BOUNDS[name as keyof typeof LATENCY_BOUNDS];
      if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max)
        throw new ApiError(400, 'invalid_parameter', `${name} must be a number from ${min} to ${max}`, name);
      if (name === 'latency_ms') next.latencyMs = value;
      else if (name === 'per_query_ms') next.perQueryMs = value;
      else next.jitter = value;
    }
    this.s = next;
    return this.settings;
  }

  /** The settings as the control endpoint shows them. */
  view(): Record<string, number> {
    return { latency_ms: this.s.latencyMs, per_query_ms: this.s.perQueryMs, jitter: this.s.jitter };
  }
}
