import type { IncomingMessage, ServerResponse } from 'node:http';
import { applyFault, FaultInjector } from '../control/faults';
import { handleControl, isControlPath } from '../control/routes';
import type { WriteResult } from './handler';
import { writeHandlers } from './handlers';
import { EventService, type EventServiceOptions } from './service';

/**
 * What the sandbox server needs from the write side, in one object:
 * - handler(operationId): handler of a monitoring / searches / webhook operation (params already validated
 *   with the operation's schema, plan already checked);
 * - isControl(path) / control(...): the /sandbox/ controls of this side;
 * - fault(...): call after authentication for every non-/sandbox/ request; true = already answered.
 */
export interface WriteSide {
  service: EventService;
  faults: FaultInjector;
  handler(operationId: string): ((account: string, params: unknown) => WriteResult) | undefined;
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
    handler(id) {
      const h = writeHandlers[id];
      return h && ((account, params) => h(service, account, params));
    },
    isControl: isControlPath,
    control: (account, method, path, body) => handleControl({ svc: service, faults, account }, method, path, body),
    async fault(account, req, res, requestId) {
      const f = faults.take(account);
      return f ? applyFault(f, req, res, requestId) : false;
    },
    close: () => service.close(),
  };
}
