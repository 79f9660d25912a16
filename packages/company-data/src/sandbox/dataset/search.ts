import { legalForms } from './labels';
import type { Company } from './model';

/**
 * Search indexes built once at generation time: word-prefix and whole-word postings ordered by static
 * rank, so a query walks candidates best-first and stops as soon as it has enough (200 for search, the
 * lookup limit for lookup). Matching rule (decided, docs/sandbox.md): every word of the query must be the
 * start of a word of the name; case and diacritics are ignored (õ = o); legal form words are optional.
 * Order, as a public search box ranks: exact names, then names holding every query word as a whole word
 * ("Kullamäe" finds Kullamäe Ehitus before Kullamäetagu Invest), then the other prefix matches.
 */

export function fold(text: string): string {
  return text
    .toLowerCase()
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '');
}

export function words(text: string): string[] {
  return fold(text)
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

const legalWords = new Set<string>();
for (const f of legalForms) {
  legalWords.add(fold(f.abbr));
  if (!f.et.includes(' ')) legalWords.add(fold(f.et));
}
legalWords.add('filiaal');

/** Name words without legal form words; all words when the name has nothing else. */
export function coreWords(text: string): string[] {
  const all = words(text);
  const core = all.filter((w) => !legalWords.has(w));
  return core.length ? core : all;
}

const MAX_PREFIX = 10;

/**
 * Word prefix → ids, in the order ids were added (callers add best-ranked first). With `wholeWords`,
 * whole word → ids instead: the postings of names that hold the word itself.
 */
export class PrefixIndex {
  private building = new Map<string, number[]>();
  private map = new Map<string, Int32Array>();

  constructor(private readonly wholeWords = false) {}

  private keysOf(token: string): string[] {
    if (this.wholeWords) return [token];
    const keys: string[] = [];
    for (let k = 1; k <= Math.min(token.length, MAX_PREFIX); k++) keys.push(token.slice(0, k));
    return keys;
  }

  add(id: number, tokens: readonly string[]): void {
    for (const t of tokens) {
      for (const p of this.keysOf(t)) {
        let list = this.building.get(p);
        if (!list) this.building.set(p, (list = []));
        // Ids arrive one at a time, so a repeated prefix of the same id is always the last entry.
        if (list[list.length - 1] !== id) list.push(id);
      }
    }
  }

  freeze(): void {
    for (const [k, list] of this.building) this.map.set(k, Int32Array.from(list));
    this.building.clear();
  }

  postings(word: string): Int32Array {
    return this.map.get(this.wholeWords ? word : word.slice(0, MAX_PREFIX)) ?? EMPTY;
  }

  /** Postings of the most selective query word. */
  driver(qWords: readonly string[]): Int32Array {
    let best: Int32Array | null = null;
    for (const w of qWords) {
      const p = this.postings(w);
      if (!best || p.length < best.length) best = p;
    }
    return best ?? EMPTY;
  }
}
const EMPTY = new Int32Array(0);

export function allPrefixed(qWords: readonly string[], nameWords: readonly string[]): boolean {
  for (const q of qWords) {
    let ok = false;
    for (const w of nameWords)
      if (w.startsWith(q)) {
        ok = true;
        break;
      }
    if (!ok) return false;
  }
  return true;
}

/** Every query word is itself a word of the name. */
export function allWhole(qWords: readonly string[], nameWords: readonly string[]): boolean {
  return qWords.every((q) => nameWords.includes(q));
}

export interface CompanyFilter {
  status?: ReadonlySet<string>;
  forms?: ReadonlySet<number>;
  activity?: readonly string[];
  counties?: ReadonlySet<number>;
  vat?: ReadonlySet<string>;
  from?: number;
  to?: number;
}

export function passes(c: Company, f: CompanyFilter): boolean {
  if (f.status && !f.status.has(c.status)) return false;
  if (f.forms && !f.forms.has(c.form)) return false;
  if (f.counties && !f.counties.has(c.county)) return false;
  if (f.vat && (c.vat === null || !f.vat.has(c.vat))) return false;
  if (f.from !== undefined && c.reg < f.from) return false;
  if (f.to !== undefined && c.reg > f.to) return false;
  if (f.activity && !c.acts.some((a) => f.activity!.some((p) => a.code.startsWith(p)))) return false;
  return true;
}

/** Static search rank: active before liquidation, bankrupt and deleted; then more employees; VAT payers first. */
export function searchRank(c: Pick<Company, 'status' | 'employees' | 'vat'>): number {
  return { R: 4, L: 2, N: 1, D: 0 }[c.status] * 10_000_000 + Math.min(c.employees, 99_999) * 10 + (c.vat ? 5 : 0);
}

export interface SearchHit {
  i: number;
  /** The previous name that matched when the current one did not. */
  previous: string | null;
}

/** A name search's results so far: at most `max`, each company once. */
interface Hits {
  out: SearchHit[];
  taken: Set<number>;
  max: number;
  filter: CompanyFilter | undefined;
}

export class CompanySearch {
  private names: string[][];
  private prevWords: Map<number, string[][]> = new Map();
  private current = new PrefixIndex();
  private currentWhole = new PrefixIndex(true);
  private previous = new PrefixIndex();
  private exact = new Map<string, number[]>();
  private codes: { code: string; i: number }[] = [];
  private newestIds: Int32Array = new Int32Array(0);
  /**
   * Companies registered, renamed or re-ranked (a status change) after the indexes were built: left out
   * of the postings and merged back in by their current rank.
   */
  private moved = new Set<number>();
  private movedByRank: number[] | null = null;
  /** Search order: higher rank first, then lower id. */
  private readonly before = (a: number, b: number) => this.companies[b]!.rank - this.companies[a]!.rank || a - b;
  /** Number of companies the code and date orders cover (registrations after it need a re-sort). */
  private ordered = 0;

  constructor(private companies: readonly Company[]) {
    this.names = companies.map((c) => coreWords(c.name));
    const byRank = companies.map((c) => c.i).sort((a, b) => companies[b]!.rank - companies[a]!.rank || a - b);
    for (const i of byRank) {
      const c = companies[i]!;
      const core = this.names[i]!;
      this.current.add(i, core);
      this.currentWhole.add(i, core);
      const key = core.join(' ');
      const list = this.exact.get(key);
      if (list) list.push(i);
      else this.exact.set(key, [i]);
      if (c.prev.length) {
        const pw = c.prev.map(coreWords);
        this.prevWords.set(i, pw);
        this.previous.add(i, pw.flat());
      }
    }
    this.current.freeze();
    this.currentWhole.freeze();
    this.previous.freeze();
    this.order();
  }

  private order(): void {
    const companies = this.companies;
    this.codes = companies.map((c) => ({ code: c.code, i: c.i })).sort((a, b) => (a.code < b.code ? -1 : 1));
    const codeRank = new Int32Array(companies.length);
    this.codes.forEach((x, k) => (codeRank[x.i] = k));
    this.newestIds = Int32Array.from(companies.map((c) => c.i)).sort(
      (a, b) => companies[b]!.reg - companies[a]!.reg || codeRank[b]! - codeRank[a]!,
    );
    this.ordered = companies.length;
  }

  /** Company ids, newest registration first (listing without q). */
  get newest(): Int32Array {
    if (this.ordered !== this.companies.length) this.order();
    return this.newestIds;
  }

  /**
   * Makes a company registered or renamed after the build searchable by its current and previous names
   * and by code (sandbox controls and registry changes). Orders are re-sorted lazily, once per batch.
   */
  update(i: number): void {
    const c = this.companies[i]!;
    const oldKey = this.names[i]?.join(' ');
    const core = coreWords(c.name);
    this.names[i] = core;
    const key = core.join(' ');
    if (oldKey !== undefined && oldKey !== key) {
      const stale = this.exact.get(oldKey);
      const at = stale?.indexOf(i) ?? -1;
      if (at >= 0) stale!.splice(at, 1);
    }
    const list = this.exact.get(key);
    if (!list) this.exact.set(key, [i]);
    else if (!list.includes(i)) list.push(i);
    if (c.prev.length) this.prevWords.set(i, c.prev.map(coreWords));
    this.reranked(i);
  }

  /** A company's rank changed (company.rank already holds the new one): it moves in every result order. */
  reranked(i: number): void {
    this.moved.add(i);
    this.movedByRank = null;
  }

  /** Candidate ids best-first: the postings (static rank order) merged with the moved companies. */
  private *candidates(index: PrefixIndex, qWords: readonly string[]): Generator<number> {
    const postings = index.driver(qWords);
    if (!this.moved.size) {
      yield* postings;
      return;
    }
    const moved = (this.movedByRank ??= [...this.moved].sort(this.before));
    let k = 0;
    for (const i of postings) {
      if (this.moved.has(i)) continue;
      while (k < moved.length && this.before(moved[k]!, i) < 0) yield moved[k++]!;
      yield i;
    }
    while (k < moved.length) yield moved[k++]!;
  }

  /** Ranked name search: exact names, then whole-word current-name matches, then the other current-name matches, then previous-name matches. */
  byName(q: string, max: number, filter?: CompanyFilter): SearchHit[] {
    const qWords = coreWords(q);
    if (!qWords.length || max <= 0) return [];
    const hits: Hits = { out: [], taken: new Set(), max, filter };
    for (const i of this.exactNames(q, qWords, filter)) {
      if (hits.out.length >= max) return hits.out;
      hits.out.push({ i, previous: null });
      hits.taken.add(i);
    }
    this.addHits(hits, this.candidates(this.currentWhole, qWords), (i) => (allWhole(qWords, this.names[i]!) ? null : undefined));
    this.addHits(hits, this.candidates(this.current, qWords), (i) => (allPrefixed(qWords, this.names[i]!) ? null : undefined));
    this.addHits(hits, this.candidates(this.previous, qWords), (i) => {
      const k = (this.prevWords.get(i) ?? []).findIndex((pw) => allPrefixed(qWords, pw));
      return k < 0 ? undefined : this.companies[i]!.prev[k]!;
    });
    return hits.out;
  }

  /** The companies named exactly the query's core words that pass the filter, best first. */
  private exactNames(q: string, qWords: readonly string[], filter?: CompanyFilter): number[] {
    const qFull = words(q).join(' ');
    const exact = (this.exact.get(qWords.join(' ')) ?? []).filter((i) => !filter || passes(this.companies[i]!, filter));
    // A query that also names the right legal form ranks that company first.
    return exact.sort(
      (a, b) =>
        Number(words(this.companies[b]!.name).join(' ') === qFull) - Number(words(this.companies[a]!.name).join(' ') === qFull) ||
        this.before(a, b),
    );
  }

  /**
   * Adds the candidates not taken yet that pass the filter and whose name matches, until `max` hits.
   * `match` gives the previous name that matched, null for the current name, undefined for no match.
   */
  private addHits(hits: Hits, candidates: Iterable<number>, match: (i: number) => string | null | undefined): void {
    for (const i of candidates) {
      if (hits.out.length >= hits.max) return;
      if (hits.taken.has(i)) continue;
      if (hits.filter && !passes(this.companies[i]!, hits.filter)) continue;
      const previous = match(i);
      if (previous === undefined) continue;
      hits.out.push({ i, previous });
      hits.taken.add(i);
    }
  }

  /** Registry code prefix (3-8 digits): active and large first. */
  byCodePrefix(prefix: string, max: number, filter?: CompanyFilter): SearchHit[] {
    if (this.ordered !== this.companies.length) this.order();
    let lo = 0;
    let hi = this.codes.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.codes[mid]!.code < prefix) lo = mid + 1;
      else hi = mid;
    }
    const ids: number[] = [];
    for (let k = lo; k < this.codes.length && this.codes[k]!.code.startsWith(prefix); k++) {
      const i = this.codes[k]!.i;
      if (!filter || passes(this.companies[i]!, filter)) ids.push(i);
    }
    ids.sort((a, b) => this.companies[b]!.rank - this.companies[a]!.rank || a - b);
    return ids.slice(0, max).map((i) => ({ i, previous: null }));
  }

  /** Listing without q: every company passing the filter, newest first; returns the page and the total. */
  list(filter: CompanyFilter, offset: number, limit: number): { ids: number[]; total: number } {
    const ids: number[] = [];
    let total = 0;
    for (const i of this.newest) {
      if (!passes(this.companies[i]!, filter)) continue;
      if (total >= offset && ids.length < limit) ids.push(i);
      total++;
    }
    return { ids, total };
  }
}

export interface PersonLike {
  id: number;
  name: string;
}

export class PersonSearch {
  private index = new PrefixIndex();
  private names: Map<number, string[]> = new Map();

  /** People are added best first (most current roles). */
  constructor(people: readonly PersonLike[]) {
    for (const p of people) {
      const w = words(p.name);
      this.names.set(p.id, w);
      this.index.add(p.id, w);
    }
    this.index.freeze();
  }

  search(q: string, max: number): number[] {
    const qWords = words(q);
    if (!qWords.length) return [];
    const qFull = qWords.join(' ');
    const exact: number[] = [];
    const rest: number[] = [];
    for (const id of this.index.driver(qWords)) {
      const w = this.names.get(id)!;
      if (!allPrefixed(qWords, w)) continue;
      if (w.join(' ') === qFull) exact.push(id);
      else if (rest.length < max) rest.push(id);
      if (exact.length >= max) break;
    }
    return [...exact, ...rest].slice(0, max);
  }
}
