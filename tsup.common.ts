import type { Options } from 'tsup';

/** What every bundle of both packages shares: CommonJS for Node 20, one file per entry. */
export const nodeBundle: Options = {
  format: ['cjs'],
  target: 'node20',
  platform: 'node',
  sourcemap: false,
  splitting: false,
};
