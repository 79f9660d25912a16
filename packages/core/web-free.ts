/**
 * What the core needs of the Web APIs, in plain language code: a query string, a UTF-8 byte count and a
 * signal to call off a wait. The core runs where those globals are missing (Google Apps Script has no
 * URLSearchParams, Buffer, TextEncoder nor AbortController), and gives the same results as they do.
 */

/** Characters application/x-www-form-urlencoded leaves as they are: URLSearchParams's set. */
const FORM_SAFE = /[!'()~]/g;
/** A surrogate half with no partner: URLSearchParams writes U+FFFD for it (encodeURIComponent would throw). */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function formEncode(text: string): string {
  return encodeURIComponent(text.replace(LONE_SURROGATE, '\uFFFD'))
    .replace(/%20/g, '+')
    .replace(FORM_SAFE, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** A query string (without "?") from name/value pairs, encoded exactly as URLSearchParams.toString() does. */
export function queryString(pairs: readonly (readonly [string, string])[]): string {
  return pairs.map(([k, v]) => `${formEncode(k)}=${formEncode(v)}`).join('&');
}

/** Bytes of `text` in UTF-8, as Buffer.byteLength counts them (a lone surrogate is the 3 bytes of U+FFFD). */
export function utf8Bytes(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}

/** The part of AbortController the core uses. */
export interface Stopper {
  readonly signal: AbortSignal;
  abort(reason?: unknown): void;
}

/**
 * An AbortController: the platform's where there is one (a clock may hand its signal to the platform's
 * timers), else a small one of the core's own with what the core and its ports use of a signal
 * (aborted, reason, abort listeners, throwIfAborted).
 */
export function newStopper(): Stopper {
  // Looked up by typeof: a missing global is then no ReferenceError.
  return typeof AbortController === 'function' ? new AbortController() : plainStopper();
}

type Listener = () => void;

function plainStopper(): Stopper {
  const listeners = new Set<Listener>();
  const state = { aborted: false, reason: undefined as unknown };
  const signal = {
    get aborted() {
      return state.aborted;
    },
    get reason() {
      return state.reason;
    },
    onabort: null,
    addEventListener: (_type: string, fn: Listener) => void listeners.add(fn),
    removeEventListener: (_type: string, fn: Listener) => void listeners.delete(fn),
    throwIfAborted() {
      if (state.aborted) throw state.reason;
    },
  } as unknown as AbortSignal;
  return {
    signal,
    abort(reason?: unknown) {
      if (state.aborted) return;
      state.aborted = true;
      state.reason = reason ?? Object.assign(new Error('This operation was aborted'), { name: 'AbortError' });
      for (const fn of [...listeners]) fn();
      listeners.clear();
    },
  };
}

/** URLSearchParams.set on a list of pairs: the first pair of that name takes the value, the others go; else it is added. */
export function setQuery(pairs: [string, string][], name: string, value: string): void {
  const at = pairs.findIndex(([k]) => k === name);
  if (at < 0) {
    pairs.push([name, value]);
    return;
  }
  pairs[at] = [name, value];
  for (let i = pairs.length - 1; i > at; i--) if (pairs[i]![0] === name) pairs.splice(i, 1);
}
