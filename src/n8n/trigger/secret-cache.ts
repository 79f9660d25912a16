/**
 * The credential's signing secret as webhook() keeps it between deliveries, per n8n process and trigger
 * node. n8n's getCredentials reads the database, decrypts, and resolves the credential's expressions on
 * every call (in a webhook process with an expression sandbox of its own), so a delivery pays that once
 * per process, and again only when a delivery does not verify with what was kept: a secret rotated in the
 * credential is picked up by the first delivery signed with it, and a forged body costs one read at most.
 */

/** Reads the credential's secret now; undefined when the credential has none or cannot be read. */
export type ReadSecret = () => Promise<string | undefined>;

export interface SecretCache {
  /** The kept secret, read first when this key has none yet; `fresh`: read by this call. */
  get(key: string, read: ReadSecret): Promise<{ secret: string | undefined; fresh: boolean }>;
  /** Reads again and keeps the result; true when it differs from what was kept. */
  reread(key: string, read: ReadSecret): Promise<{ secret: string | undefined; changed: boolean }>;
  clear(): void;
}

export function secretCache(): SecretCache {
  // Promises, so the deliveries that arrive together before the first read ends share it. A read that
  // failed keeps undefined: the next delivery that fails to verify reads again, not every delivery.
  const kept = new Map<string, Promise<string | undefined>>();
  const start = (key: string, read: ReadSecret) => {
    const p = read().catch(() => undefined);
    kept.set(key, p);
    return p;
  };
  return {
    async get(key, read) {
      const known = kept.get(key);
      if (known) return { secret: await known, fresh: false };
      return { secret: await start(key, read), fresh: true };
    },
    async reread(key, read) {
      const before = await kept.get(key);
      const secret = await start(key, read);
      return { secret, changed: secret !== before };
    },
    clear: () => kept.clear(),
  };
}

/** This process's cache, used by the trigger node. */
export const credentialSecrets = secretCache();
