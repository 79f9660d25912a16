import type { ILoadOptionsFunctions, INodeListSearchItems, INodeListSearchResult } from 'n8n-workflow';
import type { CoreClient } from '@company-data/core/client';
import type { PickerKey } from '@company-data/core/params';
import { toNodeError } from '../errors';
import { PICKER_PAGE_SIZE, pickerKeys, pickers, text, type Picker, type Row } from '../descriptions/pickers';
import { clientFor } from '../transport/client';

/** Where the user's text goes when the service has no search for the object: a name or id contains it. */
const contains = (filter: string | undefined, ...values: unknown[]) =>
  !filter || values.some((v) => text(v).toLowerCase().includes(filter.trim().toLowerCase()));

/** The pickers' list searches (methods.listSearch): one page of the picker's list, as n8n shows it. */

async function searchPage(
  client: CoreClient,
  p: Picker,
  filter: string | undefined,
  token: string | undefined,
): Promise<INodeListSearchResult> {
  const input = p.input(filter);
  if (!input) return { results: [] };
  if (!p.paged) {
    const res = await client.call(p.op, input as never);
    const rows = (Array.isArray(res.data) ? res.data : []) as Row[];
    const results = rows
      .filter((r) => contains(filter, r.name, r.id))
      .map(p.entry)
      .filter((e): e is INodeListSearchItems => e !== undefined);
    return { results };
  }
  const page = token && /^\d+$/.test(token) ? Number(token) : 1;
  const first = await client.pages(p.op, { ...input, page, limit: PICKER_PAGE_SIZE } as never).next();
  if (first.done) return { results: [] };
  const results = (first.value.items as Row[]).map(p.entry).filter((e): e is INodeListSearchItems => e !== undefined);
  return { results, ...(first.value.hasMore ? { paginationToken: String(page + 1) } : {}) };
}

export function listSearchMethod(key: PickerKey) {
  const p = pickers[key];
  return async function (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string): Promise<INodeListSearchResult> {
    const client = await clientFor(this);
    try {
      return await searchPage(client, p, filter, paginationToken);
    } catch (error) {
      throw toNodeError(this.getNode(), error, p.op, 0);
    }
  };
}

/** Every picker's list search, by method name: node files put these under methods.listSearch. */
export const listSearch = Object.fromEntries(pickerKeys.map((k) => [pickers[k].method, listSearchMethod(k)])) as Record<
  string,
  (this: ILoadOptionsFunctions, filter?: string, paginationToken?: string) => Promise<INodeListSearchResult>
>;
