/**
 * PropertiesService (user, document, script stores, persisted across executions) and CacheService (per
 * execution here: Google may evict any entry at any time, so a script can't count on one surviving).
 * Limits from Google's quotas page: 9 KB per value, 500 KB per store.
 */
import { MESSAGES, ScriptException } from './errors';
import type { Exec } from './execution-context';
import { Facade } from './facade';

export const MAX_VALUE_BYTES = 9 * 1024;
export const MAX_STORE_BYTES = 500 * 1024;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

export class PropertiesFacade extends Facade {
  readonly _type = 'Properties';
  constructor(private store: Map<string, string>) {
    super();
  }
  getProperty(key: string): string | null {
    return this.store.get(String(key)) ?? null;
  }
  getProperties(): Record<string, string> {
    return Object.fromEntries(this.store);
  }
  getKeys(): string[] {
    return [...this.store.keys()];
  }
  setProperty(key: string, value: unknown): PropertiesFacade {
    return this.setProperties({ [String(key)]: value });
  }
  /** All or nothing: a value too large or a store over its limit changes nothing. */
  setProperties(properties: Record<string, unknown>, deleteAllOthers = false): PropertiesFacade {
    const next = new Map(deleteAllOthers ? [] : this.store);
    for (const [k, v] of Object.entries(properties ?? {})) {
      const value = String(v);
      if (bytes(value) > MAX_VALUE_BYTES) throw new ScriptException(MESSAGES.propertyValueTooLarge);
      next.set(k, value);
    }
    let total = 0;
    for (const [k, v] of next) total += bytes(k) + bytes(v);
    if (total > MAX_STORE_BYTES) throw new ScriptException(MESSAGES.propertyStoreFull);
    this.store.clear();
    for (const [k, v] of next) this.store.set(k, v);
    return this;
  }
  deleteProperty(key: string): PropertiesFacade {
    this.store.delete(String(key));
    return this;
  }
  deleteAllProperties(): PropertiesFacade {
    this.store.clear();
    return this;
  }
}

export class PropertiesServiceFacade extends Facade {
  readonly _type = 'PropertiesService';
  constructor(private x: Exec) {
    super();
  }
  getUserProperties(): PropertiesFacade {
    this.x.require('PropertiesService.getUserProperties', []);
    const stores = this.x.world.userStores;
    let s = stores.get(this.x.user);
    if (!s) stores.set(this.x.user, (s = new Map()));
    return new PropertiesFacade(s);
  }
  getDocumentProperties(): PropertiesFacade {
    this.x.require('PropertiesService.getDocumentProperties', []);
    return new PropertiesFacade(this.x.world.documentStore);
  }
  getScriptProperties(): PropertiesFacade {
    this.x.require('PropertiesService.getScriptProperties', []);
    return new PropertiesFacade(this.x.world.scriptStore);
  }
}

const MAX_KEY = 250;
const MAX_CACHE_VALUE = 100 * 1024;
const MAX_EXPIRY_S = 21_600;

export class CacheFacade extends Facade {
  readonly _type = 'Cache';
  constructor(
    private x: Exec,
    private prefix: string,
  ) {
    super();
  }
  get(key: string): string | null {
    const e = this.x.cache.get(this.prefix + key);
    return e && e.expires > this.x.now() ? e.value : null;
  }
  getAll(keys: string[]): Record<string, string> {
    const out: Record<string, string> = {};
    for (const k of keys) {
      const v = this.get(k);
      if (v !== null) out[k] = v;
    }
    return out;
  }
  put(key: string, value: string, expirationInSeconds = 600): void {
    if (String(key).length > MAX_KEY) throw new ScriptException(MESSAGES.invalidArgument('key'));
    if (bytes(String(value)) > MAX_CACHE_VALUE) throw new ScriptException('Argument too large: value');
    const s = Math.min(Number(expirationInSeconds), MAX_EXPIRY_S);
    this.x.cache.set(this.prefix + key, { value: String(value), expires: this.x.now() + s * 1000 });
  }
  putAll(values: Record<string, string>, expirationInSeconds?: number): void {
    for (const [k, v] of Object.entries(values)) this.put(k, v, expirationInSeconds);
  }
  remove(key: string): void {
    this.x.cache.delete(this.prefix + key);
  }
  removeAll(keys: string[]): void {
    for (const k of keys) this.remove(k);
  }
}

export class CacheServiceFacade extends Facade {
  readonly _type = 'CacheService';
  constructor(private x: Exec) {
    super();
  }
  getUserCache(): CacheFacade {
    return new CacheFacade(this.x, `user:${this.x.user}:`);
  }
  getDocumentCache(): CacheFacade {
    return new CacheFacade(this.x, 'document:');
  }
  getScriptCache(): CacheFacade {
    return new CacheFacade(this.x, 'script:');
  }
}
