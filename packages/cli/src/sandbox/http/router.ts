import type { AnyOperation } from '../../../../../src/core/operation';

export interface Route<H> {
  method: string;
  segments: string[];
  /** Literal segments count: more literal routes win (/companies/lookup before /companies/{code}). */
  literals: number;
  op?: AnyOperation;
  handler: H;
}

export class Router<H> {
  private routes: Route<H>[] = [];

  add(method: string, path: string, handler: H, op?: AnyOperation): void {
    const segments = path.split('/').filter(Boolean);
    // Several operations may share a path (asset sections read the profile): the first one registered serves it.
    if (this.routes.some((r) => r.method === method && r.segments.join('/') === segments.join('/'))) return;
    this.routes.push({ method, segments, literals: segments.filter((s) => !s.startsWith('{')).length, op, handler });
    this.routes.sort((a, b) => b.literals - a.literals);
  }

  /** Methods that have a route at this path (for 405's Allow header). */
  methodsAt(pathname: string): string[] {
    const all = this.routes.map((r) => r.method).filter((m, i, a) => a.indexOf(m) === i);
    return all.filter((m) => this.match(m, pathname)).sort();
  }

  match(method: string, pathname: string): { route: Route<H>; params: Record<string, string> } | null {
    const parts = pathname.split('/').filter(Boolean);
    for (const route of this.routes) {
      if (route.method !== method || route.segments.length !== parts.length) continue;
      const params: Record<string, string> = {};
      let ok = true;
      for (let k = 0; k < parts.length; k++) {
        const s = route.segments[k]!;
        if (s.startsWith('{')) {
          try {
            params[s.slice(1, -1)] = decodeURIComponent(parts[k]!);
          } catch {
            ok = false;
          }
        } else if (s !== parts[k]) ok = false;
        if (!ok) break;
      }
      if (ok) return { route, params };
    }
    return null;
  }
}
