import type { INodeProperties } from 'n8n-workflow';

/**
 * Node versions. Version 2 changed parameter shapes (pickers instead of id text boxes, option lists
 * loaded from the account, Simplify). Version 3 asks the service for English when the Language option
 * is not set (the service's own default is Estonian) and gives the Lookup's match as flat columns.
 * Older versions stay for workflows saved before, and keep running exactly as they did. The node files
 * declare their versions literally (`version: [1, 2, 3], defaultVersion: 3`), where n8n's lint reads them;
 * `nodeSpecs` (src/n8n/descriptions/nodes.ts) holds the same newest version for the property lists.
 */
export type NodeVersion = 1 | 2 | 3;

/** The '@version' condition of a field shown in these of versions 1…newest; undefined: in all of them. */
function versionCondition(versions: number[], newest: number): unknown[] | undefined {
  if (versions.length === newest) return undefined;
  const from = versions[0]!;
  // A field kept up to the newest version stays open-ended, so a later version inherits it unless it changes it.
  const upToNewest = versions[versions.length - 1] === newest && versions.length === newest - from + 1;
  return upToNewest && from > 1 ? [{ _cnd: { gte: from } }] : versions;
}

const tagged = (p: INodeProperties, condition: unknown[] | undefined): INodeProperties =>
  condition ? { ...p, displayOptions: { ...p.displayOptions, show: { ...p.displayOptions?.show, '@version': condition as never } } } : p;

/**
 * One property list for all versions, as n8n's versioned nodes keep it: a field every version shares
 * appears once, the others are shown only for their versions (n8n reads '@version' from the node).
 * `lists[k]` is version k + 1. The newest version's order is the backbone; an older version's own fields
 * follow the shared field they followed before, so each version's editor looks as it did.
 */
export function mergeVersions(...lists: INodeProperties[][]): INodeProperties[] {
  const key = (p: INodeProperties) => JSON.stringify(p);
  const newest = lists.length;
  const out = lists[newest - 1]!.map((p) => ({ p, k: key(p), versions: [newest] }));
  for (let v = newest - 1; v >= 1; v--) {
    let at = 0;
    for (const p of lists[v - 1]!) {
      const k = key(p);
      const found = out.findIndex((e) => e.k === k && !e.versions.includes(v));
      if (found >= 0) {
        out[found]!.versions.unshift(v);
        at = found + 1;
      } else {
        out.splice(at++, 0, { p, k, versions: [v] });
      }
    }
  }
  return out.map(({ p, versions }) => tagged(p, versionCondition(versions, newest)));
}
