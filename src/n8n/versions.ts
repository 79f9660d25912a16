import type { INodeProperties } from 'n8n-workflow';

/**
 * Node versions. Version 2 changed parameter shapes (pickers instead of id text boxes, option lists
 * loaded from the account, Simplify); version 1 stays for workflows saved before, and keeps running
 * exactly as it did. The node files declare `version: [1, 2], defaultVersion: 2` literally, where n8n's lint reads them.
 */
export type NodeVersion = 1 | 2;

const onlyIn = (p: INodeProperties, version: unknown[]): INodeProperties => ({
  ...p,
  displayOptions: { ...p.displayOptions, show: { ...p.displayOptions?.show, '@version': version as never } },
});

/**
 * One property list for both versions, as n8n's versioned nodes keep it: a field both versions share
 * appears once, the others are shown only for their version (n8n reads '@version' from the node).
 * Version 1's own fields follow the shared field they followed before, so its editor looks as it did.
 */
export function mergeVersions(v1: INodeProperties[], v2: INodeProperties[]): INodeProperties[] {
  const key = (p: INodeProperties) => JSON.stringify(p);
  const inV2 = new Set(v2.map(key));
  const inV1 = new Set(v1.map(key));
  // v1-only fields, grouped by the shared field they come after ('' = before every shared field).
  const after = new Map<string, INodeProperties[]>();
  let anchor = '';
  for (const p of v1) {
    const k = key(p);
    if (inV2.has(k)) anchor = k;
    else after.set(anchor, [...(after.get(anchor) ?? []), onlyIn(p, [1])]);
  }
  const out: INodeProperties[] = [...(after.get('') ?? [])];
  for (const p of v2) {
    const k = key(p);
    if (!inV1.has(k)) {
      out.push(onlyIn(p, [{ _cnd: { gte: 2 } }]));
      continue;
    }
    out.push(p);
    out.push(...(after.get(k) ?? []));
  }
  return out;
}
