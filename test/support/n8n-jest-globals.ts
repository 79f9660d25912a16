/**
 * jest-mock-extended v4 takes `jest` from require('@jest/globals'), which refuses to load outside
 * Jest. It is a CommonJS require inside node_modules, so a vite alias cannot reach it; this setup
 * file (vitest.config.ts setupFiles) answers that require with vitest's own vi, whose vi.fn() has
 * the jest.fn() interface the mocks rely on.
 */
import Module from 'node:module';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, test, vi } from 'vitest';

const SHIM_ID = '\0vitest-jest-globals';
const shim = { jest: vi, expect, afterAll, afterEach, beforeAll, beforeEach, describe, it, test };

type Resolve = (request: string, ...rest: unknown[]) => string;
const M = Module as unknown as { _resolveFilename: Resolve; _cache: Record<string, unknown> };
const original = M._resolveFilename;
if (!(original as { shimmed?: boolean }).shimmed) {
  const patched: Resolve = function (this: unknown, request, ...rest) {
    return request === '@jest/globals' ? SHIM_ID : original.call(this, request, ...rest);
  };
  (patched as { shimmed?: boolean }).shimmed = true;
  M._resolveFilename = patched;
  M._cache[SHIM_ID] = { id: SHIM_ID, filename: SHIM_ID, loaded: true, exports: shim, children: [], paths: [] };
}
