/**
 * One webhook address for two consumers, as a user with both would run them: every delivery that
 * reaches it goes to the trigger node's webhook() (an n8n execution when it returns workflowData) and,
 * over HTTP with its raw body and signature headers, to the events-to-sheet receiver (one sheet row per
 * event, kept by the ledger). The sandbox's webhook points here.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { readBody } from '../../support/http-server';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IDataObject } from 'n8n-workflow';
import { CompanyDataTrigger } from '../../../nodes/CompanyDataTrigger/CompanyDataTrigger.node';
import { startWebhookReceiver } from '../../../packages/company-data/src/sheets/event-sources';
import { EventSheetWriter } from '../../../packages/company-data/src/sheets/events-to-rows';
import { CsvTable } from '../../../packages/company-data/src/sheets/csv-table';
import { hookContext, webhookContext, type Rig } from '../../n8n/trigger/harness';

export interface Delivery {
  eventId: string | undefined;
  trigger: number;
  sheet: number;
  executed: boolean;
}

export interface FanOut {
  url: string;
  staticData: IDataObject;
  secrets: string[];
  writer: EventSheetWriter;
  sheetFile: string;
  deliveries: Delivery[];
  /** Everything the trigger logged (warnings on rejected deliveries). */
  logs: string[];
  executions(): number;
  /** Activates the trigger against the service: PUT /webhook to this address, secret kept in staticData. */
  activate(creds: IDataObject): Promise<void>;
  /** Stops both consumers; removes the folder when startFanOut made it (no `dir` given). */
  close(): Promise<void>;
}

const trigger = new CompanyDataTrigger();

export async function startFanOut(opts: { workflowId: string; dir?: string }): Promise<FanOut> {
  const made = opts.dir ? undefined : mkdtempSync(join(tmpdir(), 'drill-fanout-'));
  const dir = opts.dir ?? made!;
  mkdirSync(dir, { recursive: true }); // the sheet's folder must exist, as for any user
  const sheetFile = join(dir, 'events.csv');
  const writer = new EventSheetWriter({ table: new CsvTable(sheetFile), stateDir: join(dir, 'state') });
  await writer.open();
  const secrets: string[] = [];
  const rx = await startWebhookReceiver({ writer, secrets });
  const staticData: IDataObject = {};
  const deliveries: Delivery[] = [];
  const logs: string[] = [];
  let creds: IDataObject = {};

  const server = createServer(async (req: IncomingMessage, res) => {
    const rawBody = await readBody(req);
    const { ctx, response } = webhookContext(staticData, { rawBody, headers: req.headers }, {}, creds, opts.workflowId);
    const result = await trigger.webhook.call(ctx);
    for (const call of ctx.logger.warn.mock.calls) logs.push(String(call[0]));
    const forward: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers))
      if (k.startsWith('x-service-') || k === 'content-type') forward[k] = Array.isArray(v) ? v.join(', ') : String(v);
    // Duplicated headers reach the sheet receiver as node:http joined them for the trigger.
    const sheet = await fetch(rx.url, { method: 'POST', headers: forward, body: rawBody });
    await sheet.text();
    const eventId = req.headers['x-service-event-id'];
    deliveries.push({
      eventId: Array.isArray(eventId) ? eventId[0] : eventId,
      trigger: response.statusCode,
      sheet: sheet.status,
      executed: !!result.workflowData,
    });
    const ok = response.statusCode < 300 && sheet.status < 300;
    res.writeHead(ok ? 200 : response.statusCode >= 400 ? response.statusCode : sheet.status).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;

  return {
    url,
    staticData,
    secrets,
    writer,
    sheetFile,
    deliveries,
    logs,
    executions: () => deliveries.filter((d) => d.executed).length,
    async activate(c: IDataObject) {
      creds = c;
      const ctx = hookContext({} as Rig, staticData, {}, c, url);
      await trigger.webhookMethods.default.create.call(ctx);
      secrets.push(String(staticData.signingSecret));
    },
    async close() {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await rx.close();
      await writer.close();
      if (made) rmSync(made, { recursive: true, force: true });
    },
  };
}
