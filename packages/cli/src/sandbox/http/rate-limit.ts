/** Token bucket per key: `rate` requests per second, bursts up to `rate`. */
export class RateLimiter {
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
