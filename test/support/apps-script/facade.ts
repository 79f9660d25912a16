/**
 * Objects the script holds (SpreadsheetApp, a Range, a Lock, ...) live in the test's thread as Facades;
 * the script gets a stand-in object whose methods call them (worker.ts). A Facade's API is its public
 * methods: names starting with "_" are the stand-in's own and never reach the script.
 */
export abstract class Facade {
  /** The Apps Script class name: "Range", "Sheet", "UrlFetchApp", ... */
  abstract readonly _type: string;
  /** Constants the object carries (SpreadsheetApp.ProtectionType, ScriptApp.AuthMode, ...). */
  _props(): Record<string, unknown> | undefined {
    return undefined;
  }
}

const methodCache = new Map<object, string[]>();

/** The script-visible methods of a Facade's class. */
export function methodsOf(f: Facade): string[] {
  const proto = Object.getPrototypeOf(f) as object;
  let names = methodCache.get(proto);
  if (!names) {
    const seen = new Set<string>();
    for (let p: object | null = proto; p && p !== Facade.prototype; p = Object.getPrototypeOf(p) as object | null) {
      for (const n of Object.getOwnPropertyNames(p)) {
        const d = Object.getOwnPropertyDescriptor(p, n);
        if (n !== 'constructor' && !n.startsWith('_') && typeof d?.value === 'function') seen.add(n);
      }
    }
    methodCache.set(proto, (names = [...seen]));
  }
  return names;
}

/** Handles of one execution: each Facade the script gets is numbered; the first of a type carries its methods. */
export class HandleTable {
  private byId = new Map<number | string, Facade>();
  private ids = new WeakMap<Facade, number | string>();
  private typesSent = new Set<string>();
  private next = 1;

  register(f: Facade, id?: string): { $h: number | string; $t: string; $m?: string[]; $p?: Record<string, unknown> } {
    let h = this.ids.get(f);
    if (h === undefined) {
      h = id ?? this.next++;
      this.ids.set(f, h);
      this.byId.set(h, f);
    }
    const first = !this.typesSent.has(f._type);
    this.typesSent.add(f._type);
    return { $h: h, $t: f._type, ...(first ? { $m: methodsOf(f) } : {}), ...(f._props() ? { $p: f._props() } : {}) };
  }

  get(h: number | string): Facade | undefined {
    return this.byId.get(h);
  }

  encode(value: unknown): string {
    const table = this;
    return JSON.stringify(value === undefined ? null : value, function (this: Record<string, unknown>, k, v: unknown) {
      const raw = this[k];
      if (raw instanceof Date) return { $d: raw.getTime() };
      if (raw instanceof Facade) return table.register(raw);
      return v;
    });
  }

  decode(text: string | undefined): unknown {
    if (text === undefined) return undefined;
    return JSON.parse(text, (_k, v: unknown) => {
      if (v === null || typeof v !== 'object' || Array.isArray(v)) return v;
      const o = v as Record<string, unknown>;
      if ('$d' in o) return new Date(o.$d as number);
      if ('$h' in o) return this.byId.get(o.$h as number | string) ?? null;
      return v;
    });
  }
}
