import type { ILoadOptionsFunctions, INodePropertyOptions } from 'n8n-workflow';
import { accountLists, loadMethodName, type AccountList } from '../descriptions/pickers';
import { listSearchMethod } from './listSearch';

/** The whole list the picker's search gives with no filter, as options. */
function loadOptionsMethod(key: AccountList) {
  const search = listSearchMethod(key);
  return async function (this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
    const { results } = await search.call(this);
    return results.map(({ name, value, description }) => ({ name, value, ...(description ? { description } : {}) }));
  };
}

/** Every option loader, by method name: node files put these under methods.loadOptions. */
export const loadOptions = Object.fromEntries(accountLists.map((k) => [loadMethodName(k), loadOptionsMethod(k)])) as Record<
  string,
  (this: ILoadOptionsFunctions) => Promise<INodePropertyOptions[]>
>;
