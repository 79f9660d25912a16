import type { AnyOperation } from '@company-data/core/operation';

export interface Route<H> {
  method: string;
  segments: string[];
  op?: AnyOperation;
  handler: H;
}

/** Paths of one length together; among them the more specific first: at the first segment where two differ, a literal before a {parameter}. */
function bySpecificity(a: Route<unknown>, b: Route<unknown>): number {
  if (a.segments.length !== b.segments.length) return a.segments.length - b.segments.length;
  for (let k = 0; k < a.segments.length; k++) {
    const pa = a.segments[k]!.startsWith('{');
    const pb = b.segments[k]!.startsWith('{');
    if (pa !== pb) return pa ? 1 : -1;
  }
  return 0;
}

const template = (r: Route<unknown>) => r.segments.map((s) => (s.startsWith('{') ? '{}' : s)).join('/');

/**
 * Routes by method and path. A path is served by its most specific template only: GET /companies/lookup is
 * the lookup's path with a wrong method (405, Allow: POST), not a registry code "lookup" for GET
 * /companies/{registry_code}.
 */
export class Router<H> {
  private routes: Route<H>[] = [];

  add(method: string, path: string, handler: H, op?: AnyOperation): void {
    const segments = path.split('/').filter(Boolean);
    // Several operations may share a path (asset sections read the profile): the first one registered serves it.
    if (this.routes.some((r) => r.method === method && r.segments.join('/') === segments.join('/'))) return;
    this.routes.push({ method, segments, op, handler });
    this.routes.sort(bySpecificity);
  }

  /** Methods served at this path's most specific template (for 405's Allow header). */
  methodsAt(pathname: string): string[] {
    return this.candidates(pathname)
      .map((c) => c.route.method)
      .filter((m, i, a) => a.indexOf(m) === i)
      .sort();
  }

  match(method: string, pathname: string): { route: Route<H>; params: Record<string, string> } | null {
    return this.candidates(pathname).find((c) => c.route.method === method) ?? null;
  }

  /** Routes of every method whose template is the most specific one matching the path. */
  private candidates(pathname: string): { route: Route<H>; params: Record<string, string> }[] {
    const parts = pathname.split('/').filter(Boolean);
    const out: { route: Route<H>; params: Record<string, string> }[] = [];
    for (const route of this.routes) {
      if (out.length && template(route) !== template(out[0]!.route)) continue;
      const params = bind(route.segments, parts);
      if (params) out.push({ route, params });
    }
    return out;
  }
}

function bind(segments: string[], parts: string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null;
  const params: Record<string, string> = {};
  for (let k = 0; k < parts.length; k++) {
    const s = segments[k]!;
    if (!s.startsWith('{')) {
      if (s !== parts[k]) return null;
      continue;
    }
    try {
      params[s.slice(1, -1)] = decodeURIComponent(parts[k]!);
    } catch {
      return null;
    }
  }
  return params;
}
