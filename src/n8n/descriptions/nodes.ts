import type { GroupKey } from '@company-data/core/operation';
import type { NodeVersion } from './versions';

/**
 * One n8n node: which operation groups it offers. Names, texts and icons are literal in the node
 * files (nodes/<Name>/<Name>.node.ts), where n8n's lint reads them.
 */
export interface NodeSpec {
  /** Groups offered; more than one adds a Resource field. */
  groups: ReadonlyArray<{ group: GroupKey; resource?: string; exclude?: readonly string[] }>;
  /** Operation selected when the node is added. */
  defaultOperation: string;
  /**
   * The node's newest version, the one new nodes get (the node file declares the same literally).
   * Version 3 only where an operation takes a language: it changed nothing for the others.
   */
  newestVersion: NodeVersion;
}

export const nodeSpecs = {
  companies: {
    groups: [{ group: 'companies' }],
    defaultOperation: 'lookup',
    newestVersion: 3,
  },
  people: {
    groups: [{ group: 'people' }],
    defaultOperation: 'representatives',
    newestVersion: 3,
  },
  financials: {
    groups: [{ group: 'financials' }],
    defaultOperation: 'financials',
    newestVersion: 3,
  },
  risk: {
    groups: [{ group: 'risk' }],
    defaultOperation: 'creditScore',
    newestVersion: 3,
  },
  assets: {
    groups: [{ group: 'assets' }],
    defaultOperation: 'properties',
    newestVersion: 3,
  },
  monitoring: {
    // Setting the webhook address is left to the trigger node: it registers its own URL and keeps the
    // signing secret, which the service shows only once and which must never land in an output item.
    groups: [
      { group: 'monitoring', resource: 'monitoring' },
      { group: 'webhook', resource: 'webhook', exclude: ['set'] },
    ],
    defaultOperation: 'events',
    newestVersion: 2,
  },
  searches: {
    groups: [{ group: 'searches' }],
    defaultOperation: 'matches',
    newestVersion: 2,
  },
  reference: {
    groups: [{ group: 'reference' }],
    defaultOperation: 'classifiers',
    newestVersion: 3,
  },
} as const satisfies Record<string, NodeSpec>;

export type NodeKey = keyof typeof nodeSpecs;
