import type { WriteHandlers } from '../write/handler';
import { searchView } from './searches';

/** Operations of packages/core/operations/searches.ts, keyed by operation id. */
export const searchHandlers: WriteHandlers = {
  'searches.create': (svc, acct, p) => {
    const s = svc.account(acct).searches.create(p.name, p.filters, svc.clock.now(), svc.today(), svc.companies.all());
    svc.dirty();
    return { data: searchView(s), status: 201 };
  },
  'searches.matches': (svc, acct, p) => {
    svc.account(acct).searches.get(p.search_id);
    const page = svc.account(acct).log.matchesPage(p.search_id, p);
    return { data: page.data, meta: page.meta };
  },
  'searches.list': (svc, acct) => ({ data: svc.account(acct).searches.all().map(searchView) }),
  'searches.get': (svc, acct, p) => ({ data: searchView(svc.account(acct).searches.get(p.search_id)) }),
  'searches.remove': (svc, acct, p) => {
    svc.account(acct).searches.remove(p.search_id);
    svc.dirty();
    return { data: { id: p.search_id, deleted: true } };
  },
};
