import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyFault, FaultInjector } from '../control/faults';
import { handleControl, isControlPath } from '../control/routes';
import type { OpContext, OpHandlers } from '../handlers/types';
import type { WriteResult } from './handler';
import { writeHandlers } from './handlers';
import { EventService, type EventServiceOptions } from './service';

/**
 * What the sandbox server needs from the write side, in one object:
 * - handlers: the monitoring / searches / webhook operations (params already validated with the
 *   operation's schema, plan already checked);
 * - isControl(path) / control(...): the /sandbox/ controls of this side;
 * - fault(...): call after authentication for every non-/sandbox/ request; true = already answered.
 */
export interface WriteSide {
  service: EventService;
  faults: FaultInjector;
  /** The write side's operations, for SandboxServer.handleAll. */
  handlers: OpHandlers;
  isControl(path: string): boolean;
  control(account: string, method: string, path: string, body: unknown): WriteResult;
  fault(account: string, req: IncomingMessage, res: ServerResponse, requestId: string): Promise<boolean>;
  close(): Promise<void>;
}

export function createWriteSide(opts: EventServiceOptions): WriteSide {
  const service = new EventService(opts);
  const faults = new FaultInjector();
  return {
    service,
    faults,
    handlers: Object.fromEntries(
      routedWriteHandlers().map(([id, h]) => [id, (ctx: OpContext<unknown>) => h(service, ctx.key!.id, ctx.params)]),
    ),
    isControl: isControlPath,
    control: (account, method, path, body) => handleControl({ svc: service, faults, account }, method, path, body),
    async fault(account, req, res, requestId) {
      const f = faults.take(account);
      return f ? applyFault(f, req, res, requestId) : false;
    },
    close: () => service.close(),
  };
}

/** As routedHandlers (handlers/types.ts): each handler gets the parameters its own operation validated. */
function routedWriteHandlers(): [string, (svc: EventService, account: string, params: unknown) => WriteResult][] {
  return Object.entries(writeHandlers) as [string, (svc: EventService, account: string, params: unknown) => WriteResult][];
}
