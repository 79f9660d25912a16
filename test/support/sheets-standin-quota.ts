/**
 * Google's per-user request quotas for the Sheets API, as the stand-in keeps them: read requests and
 * write requests per minute per user (60 each by default). Counted over a sliding window: a client that
 * stays within it is within Google's per-minute refill however Google's minutes are aligned, so the
 * stand-in is the stricter of the two.
 */
export interface QuotaOptions {
  /** Google's default: 60 write requests per minute per user. */
  writesPerMinute?: number;
  /** Google's default: 60 read requests per minute per user. */
  readsPerMinute?: number;
  /** Length of the quota window; 60 s like Google, shorter in tests (with the same per-window limits). */
  windowMs?: number;
}

export type QuotaKind = 'read' | 'write';

export class PerUserQuota {
  private readonly windows = new Map<string, Record<QuotaKind, number[]>>();

  constructor(private readonly options: QuotaOptions = {}) {}

  limit(kind: QuotaKind): number {
    return (kind === 'write' ? this.options.writesPerMinute : this.options.readsPerMinute) ?? 60;
  }

  /**
   * Counts one request of this kind for this user. Returns Google's 429 message when the window is full
   * (the request is then not counted: Google does not charge refused requests to the quota).
   */
  take(user: string, kind: QuotaKind, now = Date.now()): string | undefined {
    const windowMs = this.options.windowMs ?? 60_000;
    let w = this.windows.get(user);
    if (!w) this.windows.set(user, (w = { read: [], write: [] }));
    const times = w[kind];
    while (times.length && times[0]! <= now - windowMs) times.shift();
    if (times.length >= this.limit(kind)) {
      const metric = kind === 'write' ? 'Write requests' : 'Read requests';
      return `Quota exceeded for quota metric '${metric}' and limit '${metric} per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:000000000000'.`;
    }
    times.push(now);
    return undefined;
  }
}
