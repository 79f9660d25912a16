import type { INodeTypes } from 'n8n-workflow';
import { sleep, Workflow } from 'n8n-workflow';
import { mock } from 'jest-mock-extended';
import { afterEach, describe, expect, test, vi } from 'vitest';
import type { LookupResult } from '@company-data/core/schemas/company';
import { staticDataAnswerStore } from '../../../src/n8n/google-sheets/ports/answer-store';
import { inProcessWriterLocks } from '../../../src/n8n/google-sheets/ports/writer-locks';
import { googleSheetsNode } from '../../support/n8n-google-context';

/** The n8n adapters of the Sheets engine's ports that hold state: the store of paid answers, the writer lock, the clock. */

const node = googleSheetsNode;
const answer = (code: string) => ({ status: 'matched', matches: [{ registry_code: code }] }) as unknown as LookupResult;
const scope = (over: Record<string, unknown> = {}) => ({
  tableId: 'sheet-1:Leads',
  service: 'http://sb',
  limit: 1,
  lang: 'en' as const,
  now: () => Date.now(),
  ...over,
});

/** The node's static data as n8n hands it out: an observable object whose changes n8n saves at the end of a production run. */
function n8nStaticData() {
  const workflow = new Workflow({ nodes: [node], connections: {}, active: false, nodeTypes: mock<INodeTypes>(), staticData: {} });
  return { workflow, data: workflow.getStaticData('node', node) };
}

describe('store of paid answers in the workflow static data', () => {
  test('answers recorded by a run that did not finish are free for the next run, and n8n sees the change', async () => {
    const { workflow, data } = n8nStaticData();
    const first = await staticDataAnswerStore(data)(scope());
    first.record!([
      { key: 'code:10000001', answer: answer('10000001') },
      { key: 'code:10000002', answer: answer('10000002') },
    ]);
    await first.finish(true);
    expect((workflow.staticData as { __dataChanged?: boolean }).__dataChanged).toBe(true);

    const next = await staticDataAnswerStore(data)(scope());
    expect(next.free(['code:10000001', 'code:10000002', 'code:10000003'])).toEqual(['code:10000001', 'code:10000002']);
    expect(next.get('code:10000001')).toEqual(answer('10000001'));
    expect(next.get('code:10000003')).toBeUndefined();
    expect(next.fromJournal).toBe(1);
    // Answers given under other options, or for another sheet, are not handed out.
    const otherLang = await staticDataAnswerStore(data)(scope({ lang: 'et' }));
    expect(otherLang.get('code:10000001')).toBeUndefined();
    const otherSheet = await staticDataAnswerStore(data)(scope({ tableId: 'sheet-2:Leads' }));
    expect(otherSheet.has!('code:10000001')).toBe(false);
  });

  test('a run that finished (everything in the sheet) leaves nothing behind; old answers are not reused', async () => {
    const { data } = n8nStaticData();
    const run = await staticDataAnswerStore(data)(scope());
    run.set('code:1', answer('1'));
    await run.finish(false);
    expect((await staticDataAnswerStore(data)(scope())).free(['code:1'])).toEqual([]);

    const old = await staticDataAnswerStore(data)(scope({ now: () => Date.now() - 40 * 86_400_000 }));
    old.set('code:2', answer('2'));
    await old.finish(true);
    expect((await staticDataAnswerStore(data)(scope({ maxAgeDays: 30 }))).free(['code:2'])).toEqual([]);
  });
});

describe('writer lock within one n8n process', () => {
  test('a second writer of the same sheet is refused, naming it, until the first releases', async () => {
    const table = { id: 'sheet-1:Leads', label: 'Google sheet Leads' };
    const held = await inProcessWriterLocks.acquire(table);
    expect(() => inProcessWriterLocks.acquire(table)).toThrow(/Google sheet Leads is being written by another execution/);
    const other = await inProcessWriterLocks.acquire({ id: 'sheet-2:Leads', label: 'another' });
    await held.release();
    await held.release();
    const again = await inProcessWriterLocks.acquire(table);
    await again.release();
    await other.release();
  });
});

describe('clock: waits end on Stop, with or without n8n’s sleepWithAbort', () => {
  afterEach(() => {
    vi.doUnmock('n8n-workflow');
    vi.resetModules();
  });

  const stopsEarly = async (clockModule: typeof import('../../../src/n8n/transport/clock')) => {
    const stop = new AbortController();
    const clock = clockModule.n8nClock(stop.signal);
    const started = Date.now();
    const waiting = clock.sleep(60_000);
    await sleep(100);
    stop.abort();
    await waiting;
    // A minute asked for; Stop ended it at once (generous bound for a loaded machine).
    expect(Date.now() - started).toBeLessThan(5_000);
    // A wait's own signal ends it too, and a wait after Stop does not wait at all.
    const own = new AbortController();
    const t0 = Date.now();
    const w2 = clockModule.n8nClock(undefined).sleep(60_000, own.signal);
    own.abort();
    await w2;
    await clock.sleep(60_000);
    expect(Date.now() - t0).toBeLessThan(5_000);
  };

  test('n8n-workflow 1.x: sleepWithAbort', async () => {
    await stopsEarly(await import('../../../src/n8n/transport/clock'));
  });

  test('n8n 2.x (no sleepWithAbort): slices of n8n-workflow’s sleep', async () => {
    vi.resetModules();
    vi.doMock('n8n-workflow', async (original) => {
      const rest: Record<string, unknown> = { ...(await original<typeof import('n8n-workflow')>()) };
      delete rest.sleepWithAbort;
      return rest;
    });
    const clockModule = await import('../../../src/n8n/transport/clock');
    const workflow = await import('n8n-workflow');
    expect('sleepWithAbort' in workflow).toBe(false);
    await stopsEarly(clockModule);
    // Without a signal it waits the time asked.
    const t0 = Date.now();
    await clockModule.n8nClock(undefined).sleep(300);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(290);
  });
});
