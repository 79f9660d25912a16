/**
 * The sandbox's per-key request quota, which answers 429 like the service: a token bucket per API key,
 * `rate` requests per second, bursts up to `rate`. (The client's own pacing is RateLimiter in
 * packages/core/limiter.ts; this is the server side, so it has its own name.)
 */
export class KeyQuota {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private readonly rate: number,
    private readonly now: () => number,
  ) {}

  /** null when allowed; otherwise the seconds to wait (Retry-After, at least 1). */
  take(id: string): number | null {
    const t = this.now();
    let b = this.buckets.get(id);
    if (!b) this.buckets.set(id, (b = { tokens: this.rate, at: t }));
    b.tokens = Math.min(this.rate, b.tokens + ((t - b.at) / 1000) * this.rate);
    b.at = t;
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return null;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
  }
}
