import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { writeFileAtomic } from '../../files/atomic-file';
import { dirname, join } from 'node:path';

export type Plan = 'api' | 'basic';

export interface KeyInfo {
  /** Public id derived from the hash; safe to log and store. */
  id: string;
  plan: Plan;
}

export interface StoredKey {
  id: string;
  hash: string;
  plan: Plan;
  created_at: string;
  revoked_at: string | null;
}

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex');
export const keyId = (hash: string) => `key_${hash.slice(0, 12)}`;
export const newKey = (plan: Plan) => `sk_${plan === 'api' ? 'api' : 'basic'}_${randomBytes(20).toString('hex')}`;
export const keyFile = (dataDir: string) => join(dataDir, 'keys.json');

/** keys.json in a data dir holds hashes only: a key is shown once and cannot be recovered. */
export function readKeyFile(dataDir: string): StoredKey[] {
  const f = keyFile(dataDir);
  if (!existsSync(f)) return [];
  const parsed = JSON.parse(readFileSync(f, 'utf8')) as { keys?: StoredKey[] };
  return parsed.keys ?? [];
}

export function writeKeyFile(dataDir: string, keys: StoredKey[]): void {
  const f = keyFile(dataDir);
  mkdirSync(dirname(f), { recursive: true });
  writeFileAtomic(f, `${JSON.stringify({ keys }, null, 2)}\n`, 0o600);
}

/** Creates a key, stores its hash in the data dir and returns the key (the only time it exists in clear). */
export function createStoredKey(dataDir: string, plan: Plan, now: Date): { key: string; stored: StoredKey } {
  const key = newKey(plan);
  const hash = hashKey(key);
  const stored: StoredKey = { id: keyId(hash), hash, plan, created_at: now.toISOString(), revoked_at: null };
  writeKeyFile(dataDir, [...readKeyFile(dataDir), stored]);
  return { key, stored };
}

export function revokeStoredKey(dataDir: string, id: string, now: Date): boolean {
  const keys = readKeyFile(dataDir);
  const k = keys.find((x) => x.id === id && !x.revoked_at);
  if (!k) return false;
  k.revoked_at = now.toISOString();
  writeKeyFile(dataDir, keys);
  return true;
}

/**
 * Keys given at start (kept hashed in memory) plus the data dir's key file, re-read at most every
 * reloadMs so that a revoked key stops working within that time (default 10 s, well under a minute).
 */
export class KeyStore {
  private memory = new Map<string, KeyInfo>();
  private file = new Map<string, KeyInfo>();
  private checkedAt = -Infinity;
  private mtime = -1;

  constructor(
    private readonly dataDir: string | undefined,
    private readonly now: () => number,
    private readonly reloadMs = 10_000,
  ) {}

  add(key: string, plan: Plan): KeyInfo {
    const hash = hashKey(key);
    const info = { id: keyId(hash), plan };
    this.memory.set(hash, info);
    return info;
  }

  lookup(key: string): KeyInfo | null {
    this.maybeReload();
    const hash = hashKey(key);
    return this.memory.get(hash) ?? this.file.get(hash) ?? null;
  }

  private maybeReload(): void {
    if (!this.dataDir) return;
    const t = this.now();
    if (t - this.checkedAt < this.reloadMs) return;
    this.checkedAt = t;
    const f = keyFile(this.dataDir);
    const mtime = existsSync(f) ? statSync(f).mtimeMs : 0;
    if (mtime === this.mtime) return;
    this.mtime = mtime;
    this.file = new Map(
      readKeyFile(this.dataDir)
        .filter((k) => !k.revoked_at)
        .map((k) => [k.hash, { id: k.id, plan: k.plan }]),
    );
  }
}
