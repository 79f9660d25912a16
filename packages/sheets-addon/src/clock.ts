/**
 * The loop of one execution (loop.ts) with the add-on's I/O: Date for the time (Apps Script's Date is the
 * real clock), Utilities.sleep to block, UrlFetchApp for the requests. The engine's clock and transport are
 * views of it.
 */
import type { SheetsClock, Transport } from '@company-data/core/sheets/ports';
import type { TransportRequest, TransportResponse } from '@company-data/core/transport';
import { Loop } from './loop';
import { sendBatch } from './url-fetch';

export interface Runtime {
  loop: Loop<TransportRequest, TransportResponse>;
  clock: SheetsClock;
  transport: Transport;
}

/** onRound: called each time the loop looks around (the run's time budget is checked there). */
export function newRuntime(onRound?: () => void): Runtime {
  const loop = new Loop<TransportRequest, TransportResponse>({
    now: () => Date.now(),
    block: (ms) => Utilities.sleep(ms),
    send: sendBatch,
    ...(onRound ? { onRound } : {}),
  });
  return {
    loop,
    clock: { now: () => Date.now(), sleep: (ms, signal) => loop.sleep(ms, signal) },
    transport: { request: (req) => loop.request(req) },
  };
}
