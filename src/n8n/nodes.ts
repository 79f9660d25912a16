import type { GroupKey } from '../core/operation';

/**
 * One n8n node: which operation groups it offers. Names, texts and icons are literal in the node
 * files (nodes/<Name>/<Name>.node.ts), where n8n's lint reads them.
 */
export interface NodeSpec {
  /** Groups offered; more than one adds a Resource field. */
  groups: ReadonlyArray<{ group: GroupKey; resource?: string; exclude?: readonly string[] }>;
  /** Operation selected when the node is added. */
  defaultOperation: string;
}

export const nodeSpecs = {
  companies: {
    groups: [{ group: 'companies' }],
    defaultOperation: 'lookup',
  },
  people: {
    groups: [{ group: 'people' }],
    defaultOperation: 'representatives',
  },
  financials: {
    groups: [{ group: 'financials' }],
    defaultOperation: 'financials',
  },
  risk: {
    groups: [{ group: 'risk' }],
    defaultOperation: 'creditScore',
  },
  assets: {
    groups: [{ group: 'assets' }],
    defaultOperation: 'properties',
  },
  monitoring: {
    // Setting the webhook address is left to the trigger node: it registers its own URL and keeps the
    // signing secret, which the service shows only once and which must never land in an output item.
    groups: [
      { group: 'monitoring', resource: 'monitoring' },
      { group: 'webhook', resource: 'webhook', exclude: ['set'] },
    ],
    defaultOperation: 'events',
  },
  searches: {
    groups: [{ group: 'searches' }],
    defaultOperation: 'matches',
  },
  reference: {
    groups: [{ group: 'reference' }],
    defaultOperation: 'classifiers',
  },
} as const satisfies Record<string, NodeSpec>;

export type NodeKey = keyof typeof nodeSpecs;
