import type { WriteHandlers } from '../write/handler';
import { entryView, listView } from './lists';

/** Operations of packages/core/operations/monitoring.ts, keyed by operation id. */
export const monitoringHandlers: WriteHandlers = {
  'monitoring.createList': (svc, acct, p) => {
    const l = svc.account(acct).lists.create(p.name, p.categories, svc.clock.now());
    svc.dirty();
    return { data: listView(l), status: 201 };
  },
  'monitoring.addCompanies': (svc, acct, p) => {
    const res = svc
      .account(acct)
      .lists.addCompanies(p.list_id, { add: p.add, replace: p.replace }, svc.clock.now(), (code) => svc.companies.get(code) !== undefined);
    svc.dirty();
    return { data: res };
  },
  'monitoring.events': (svc, acct, p) => {
    const page = svc.account(acct).log.monitoringPage(p);
    return { data: page.data, meta: page.meta };
  },
  'monitoring.lists': (svc, acct) => ({ data: svc.account(acct).lists.all().map(listView) }),
  'monitoring.getList': (svc, acct, p) => ({ data: listView(svc.account(acct).lists.get(p.list_id)) }),
  'monitoring.updateList': (svc, acct, p) => {
    const l = svc.account(acct).lists.update(p.list_id, { name: p.name, categories: p.categories });
    svc.dirty();
    return { data: listView(l) };
  },
  'monitoring.deleteList': (svc, acct, p) => {
    svc.account(acct).lists.remove(p.list_id);
    svc.dirty();
    return { data: { id: p.list_id, deleted: true } };
  },
  'monitoring.listCompanies': (svc, acct, p) => {
    const entries = Object.values(svc.account(acct).lists.get(p.list_id).companies).sort(
      (a, b) => a.added_at - b.added_at || a.registry_code.localeCompare(b.registry_code),
    );
    const page = p.page ?? 1;
    const limit = p.limit ?? 25;
    const rows = entries.slice((page - 1) * limit, page * limit).map((e) => entryView(e, svc.companies.get(e.registry_code)?.name ?? null));
    return { data: rows, meta: { pagination: { page, limit, total: entries.length, has_more: page * limit < entries.length } } };
  },
  'monitoring.updateCompany': (svc, acct, p) => {
    const e = svc.account(acct).lists.updateEntry(p.list_id, p.registry_code, { categories: p.categories, external_ref: p.external_ref });
    svc.dirty();
    return { data: entryView(e, svc.companies.get(e.registry_code)?.name ?? null) };
  },
  'monitoring.removeCompany': (svc, acct, p) => {
    svc.account(acct).lists.removeEntry(p.list_id, p.registry_code);
    svc.dirty();
    return { data: { registry_code: p.registry_code, removed: true } };
  },
};
