/**
 * Keep Current's list half, shared by `company-data watch` and the n8n node: find (or make) the sheet's
 * monitoring list and send what planListSync plans, remembering the members through a state port (the CLI:
 * a file in its state folder; n8n: the workflow's static data) so a pass where nothing changed sends
 * nothing. Pure: HTTP comes through the client, the state through the port. Decisions in
 * docs/decisions/watch.md, "The sheet's companies and the list".
 */
import { CompanyDataError } from '../errors';
import { planListSync, type ListRequest } from './list-sync';
import { isJsonObject } from '../json';

/** What the list sync needs from the client (CompanyDataClient satisfies it). */
export interface WatchListClient {
  monitoring: {
    lists(): Promise<{ data: unknown }>;
    createList(input: { name: string }): Promise<{ data: unknown }>;
    addCompanies(input: { list_id: string } & ListRequest): Promise<{ data: unknown }>;
    listCompanies(input: { list_id: string; page?: number; limit?: number }): Promise<{ data: unknown; meta?: unknown }>;
  };
}

/** What a sync remembers between passes. */
export interface WatchListState {
  listId: string;
  listName: string;
  /** The list's members after the last sync this watch made. */
  members: string[];
}

/**
 * Where the state lives. `get` returns undefined when there is none (or it is damaged: `parseWatchListState`);
 * a missing state only costs one read of the list's members.
 */
export interface WatchListStatePort {
  get(): WatchListState | undefined | Promise<WatchListState | undefined>;
  put(state: WatchListState): void | Promise<void>;
}

export interface ListSyncResult {
  listId: string;
  listName: string;
  created: boolean;
  added: number;
  removed: number;
  kept: number;
  /** The companies added and removed, by registry code; empty when the list's members could not be read. */
  addedCodes: string[];
  removedCodes: string[];
  /** Codes the service did not take (unknown to it), with its reason. */
  invalid: { registry_code: string; reason: string }[];
  /** POST …/companies requests sent; requests in all (finding the list and reading its members too). */
  partRequests: number;
  requests: number;
  churned: number;
}

type Rec = Record<string, unknown>;

/** A stored state, checked: anything else (damaged, of an older shape) reads as none. */
export function parseWatchListState(s: unknown): WatchListState | undefined {
  if (isJsonObject(s) && typeof s.listId === 'string' && typeof s.listName === 'string' && Array.isArray(s.members))
    return { listId: s.listId, listName: s.listName, members: s.members.filter((m): m is string => typeof m === 'string') };
  return undefined;
}

const PAGE = 100;

const notOffered = (err: unknown) => err instanceof CompanyDataError && (err.status === 404 || err.status === 405);

/** Every member of a list, read page by page; undefined when the service offers no such read. */
async function readMembers(client: WatchListClient, listId: string, count: () => void): Promise<string[] | undefined> {
  const members: string[] = [];
  for (let page = 1; ; page++) {
    count();
    const req = client.monitoring.listCompanies({ list_id: listId, page, limit: PAGE });
    // Reading a list's companies is "not shown" in the spec: a service without it gets a full replace.
    const res = await (page === 1 ? req.catch((err: unknown) => (notOffered(err) ? undefined : Promise.reject(err))) : req);
    if (!res) return undefined;
    const items = Array.isArray(res.data) ? res.data : [];
    for (const i of items) if (isJsonObject(i) && typeof i.registry_code === 'string') members.push(i.registry_code);
    const pagination = isJsonObject(res.meta) && isJsonObject(res.meta.pagination) ? res.meta.pagination : undefined;
    const more = pagination && typeof pagination.has_more === 'boolean' ? pagination.has_more : items.length === PAGE;
    if (!more || items.length === 0) return members;
  }
}

export interface SyncListOptions {
  client: WatchListClient;
  /** The sheet's registry codes (matchedCodes). */
  codes: readonly string[];
  listName: string;
  externalRef: string;
  /** The watched sheet's state. */
  state: WatchListStatePort;
  partSize?: number;
  /**
   * No earlier watch of this sheet can have made the list: with no state, it is made without looking for one of
   * its name first (one request less on a first watch). The CLI knows it when it has just made the events sheet,
   * which every watch makes before its first list sync.
   */
  firstWatch?: boolean;
}

/** Makes the list hold exactly `codes`; the list is found by the id the state keeps, else by name, else made. */
export async function syncList(opts: SyncListOptions): Promise<ListSyncResult> {
  const { client } = opts;
  const saved = await opts.state.get();
  let requests = 0;
  const count = () => void requests++;

  let all: Rec[] = [];
  if (saved || !opts.firstWatch) {
    count();
    const lists = await client.monitoring.lists();
    all = (Array.isArray(lists.data) ? lists.data : []).filter(isJsonObject);
  }
  // The list this sheet's state names, if it still exists under the name asked for; else one of that name.
  let list =
    (saved && saved.listName === opts.listName ? all.find((l) => l.id === saved.listId) : undefined) ??
    all.find((l) => l.name === opts.listName);
  let created = false;
  let current: readonly string[] | undefined;
  if (!list) {
    count();
    const res = await client.monitoring.createList({ name: opts.listName });
    if (!isJsonObject(res.data) || typeof res.data.id !== 'string')
      throw new Error('monitoring list: the service made the list but sent no id');
    list = res.data;
    created = true;
    current = [];
  } else {
    const listId = String(list.id);
    const size = typeof list.companies === 'number' ? list.companies : undefined;
    // The state is trusted when it is of this list and the list still holds as many companies as it says.
    current = saved && saved.listId === listId && size === saved.members.length ? saved.members : await readMembers(client, listId, count);
  }
  const listId = String(list.id);
  const plan = planListSync({
    desired: opts.codes,
    ...(current ? { current } : {}),
    externalRef: opts.externalRef,
    ...(opts.partSize ? { partSize: opts.partSize } : {}),
  });

  const invalid: ListSyncResult['invalid'] = [];
  let added = 0;
  let removed = 0;
  let total: number | undefined;
  for (const req of plan.requests) {
    count();
    const res = await client.monitoring.addCompanies({ list_id: listId, ...req });
    const d = isJsonObject(res.data) ? res.data : {};
    if (typeof d.added === 'number') added += d.added;
    if (typeof d.removed === 'number') removed += d.removed;
    if (typeof d.total === 'number') total = d.total;
    if (Array.isArray(d.invalid))
      for (const i of d.invalid)
        if (isJsonObject(i)) invalid.push({ registry_code: String(i.registry_code), reason: String(i.reason ?? '') });
  }
  const refused = new Set(invalid.map((i) => i.registry_code));
  const members = [...new Set(opts.codes)].filter((c) => !refused.has(c));
  await opts.state.put({ listId, listName: opts.listName, members });

  // Known members: the plan's counts. Unknown (a service that cannot list them): the service's, less what a
  // multi-part replace took off and put back.
  const known = current !== undefined;
  const addedCodes = known ? plan.added.filter((c) => !refused.has(c)) : [];
  return {
    listId,
    listName: opts.listName,
    created,
    added: known ? addedCodes.length : Math.max(0, added - plan.churned),
    removed: known ? plan.removed.length : Math.max(0, removed - plan.churned),
    kept: known ? plan.kept.length : Math.max(0, (total ?? members.length) - Math.max(0, added - plan.churned)),
    addedCodes,
    removedCodes: known ? plan.removed : [],
    invalid,
    partRequests: plan.requests.length,
    requests,
    churned: plan.churned,
  };
}
