import { z } from 'zod/v4';
import { validationErrorFromIssues } from '@company-data/core/client';
import { dateSchema, registryCodeSchema } from '@company-data/core/params';
import { text } from '@company-data/core/text-length';
import { monitoringCategories } from '@company-data/core/schemas/events';
import { MAX_ADVANCE_SECONDS, MAX_TIME_SCALE } from '../clock';
import { ApiError } from '../http/errors';
import type { WriteResult } from '../write/handler';
import type { EventService } from '../write/service';
import { localDate } from '../monitoring/schedule';
import { faultKinds, type FaultInjector } from './faults';

/** Sandbox-only controls under /sandbox/ (docs/sandbox-events.md). They need a valid key of any plan. */

export interface ControlContext {
  svc: EventService;
  faults: FaultInjector;
  account: string;
}

interface ControlRoute {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  path: string;
  body?: z.ZodType;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the body is checked by `body` (zod) before run
  run(ctx: ControlContext, body: any): WriteResult;
}

const companyInput = z.strictObject({
  registry_code: registryCodeSchema.optional(),
  name: text({ min: 1, max: 200 }).optional(),
  legal_form: text({ min: 1 }).optional(),
  county: text({ min: 1 }).optional(),
  activity_code: z
    .string()
    .regex(/^\d{5}$/, 'must be a 5-digit EMTAK code')
    .optional(),
  registered_on: dateSchema.optional(),
  employees: z.number().int().min(0).nullable().optional(),
  revenue: z.number().nullable().optional(),
});

function clockView(svc: EventService) {
  const next = svc.nextRun();
  return {
    now: svc.clock.iso(),
    date: localDate(svc.clock.now()),
    time_scale: svc.clock.scale,
    next_run: { at: new Date(next.at).toISOString(), morning: next.morning },
  };
}

function settingsView(svc: EventService) {
  const s = svc.settings;
  return {
    detection_rate: s.detectionRate,
    duplicate_rate: s.duplicateRate,
    duplicate_copies: s.duplicateCopies,
    answer_timeout_ms: s.answerTimeoutMs,
    delivery_concurrency: s.concurrency,
  };
}

export const controlRoutes: readonly ControlRoute[] = [
  { method: 'GET', path: '/sandbox/clock', run: ({ svc }) => ({ data: clockView(svc) }) },
  {
    method: 'POST',
    path: '/sandbox/clock',
    body: z.strictObject({
      advance_seconds: z
        .number()
        .min(0, 'must be 0 or more')
        .max(MAX_ADVANCE_SECONDS, `must be at most ${MAX_ADVANCE_SECONDS} (366 days)`)
        .optional(),
      to: z
        .string()
        .refine((v) => !Number.isNaN(Date.parse(v)), 'must be an ISO 8601 time')
        .optional(),
      time_scale: z.number().gt(0, 'must be above 0').max(MAX_TIME_SCALE, `must be at most ${MAX_TIME_SCALE}`).optional(),
    }),
    run: ({ svc }, b) => {
      if (b.time_scale !== undefined) svc.clock.setScale(b.time_scale);
      if (b.to !== undefined) {
        const to = Date.parse(b.to);
        if (to < svc.clock.now())
          throw new ApiError(400, 'invalid_parameter', 'to must not be earlier than the sandbox time (the clock only moves forward)', 'to');
        if (to - svc.clock.now() > MAX_ADVANCE_SECONDS * 1000)
          throw new ApiError(400, 'invalid_parameter', 'to must be at most 366 days after the sandbox time', 'to');
        svc.clock.setTo(to);
      }
      if (b.advance_seconds !== undefined) svc.clock.advance(b.advance_seconds * 1000);
      return { data: clockView(svc) };
    },
  },
  {
    method: 'POST',
    path: '/sandbox/runs',
    body: z.strictObject({
      kind: z.enum(['detection', 'morning', 'evening', 'searches'], { message: 'must be detection, morning, evening or searches' }),
    }),
    run: ({ svc }, b) => {
      const at = svc.clock.now();
      const date = localDate(at);
      if (b.kind === 'searches') return { data: { detection_events: 0, search_events: svc.runSearches(at, date) } };
      return { data: svc.runSlot({ at, date, morning: b.kind === 'morning' }) };
    },
  },
  {
    method: 'POST',
    path: '/sandbox/changes',
    body: z.strictObject({
      registry_code: z.string().regex(/^\d{8}$/, 'must be 8 digits'),
      category: z.enum(monitoringCategories, { message: `must be one of: ${monitoringCategories.join(', ')}` }),
      kind: z.string().optional(),
      details: z.record(z.string(), z.unknown()).optional(),
    }),
    run: ({ svc, account }, b) => ({ data: svc.createChange(account, b), status: 201 }),
  },
  {
    method: 'POST',
    path: '/sandbox/companies',
    body: z
      .strictObject({
        count: z.number().int().min(1, 'must be 1 or more').max(5000, 'must be at most 5000').optional(),
        template: companyInput.omit({ registry_code: true }).optional(),
        companies: z.array(companyInput).max(5000, 'at most 5000 companies per request').optional(),
      })
      .refine((b) => b.count !== undefined || b.companies?.length, { message: 'give count or companies', path: ['count'] }),
    run: ({ svc }, b) => {
      const inputs = b.companies ?? Array.from({ length: b.count }, () => ({ ...b.template }));
      const codes = svc.registerCompanies(inputs);
      return { data: { registered: codes.length, registry_codes: codes }, status: 201 };
    },
  },
  { method: 'GET', path: '/sandbox/settings', run: ({ svc }) => ({ data: settingsView(svc) }) },
  {
    method: 'PUT',
    path: '/sandbox/settings',
    body: z.strictObject({
      detection_rate: z.number().min(0).max(1, 'must be from 0 to 1').optional(),
      duplicate_rate: z.number().min(0).max(1, 'must be from 0 to 1').optional(),
      duplicate_copies: z.number().int().min(1).max(10, 'must be from 1 to 10').optional(),
      answer_timeout_ms: z.number().int().min(1).max(60_000, 'must be from 1 to 60000').optional(),
      delivery_concurrency: z.number().int().min(1).max(64, 'must be from 1 to 64').optional(),
    }),
    run: ({ svc }, b) => {
      const s = svc.settings;
      if (b.detection_rate !== undefined) s.detectionRate = b.detection_rate;
      if (b.duplicate_rate !== undefined) s.duplicateRate = b.duplicate_rate;
      if (b.duplicate_copies !== undefined) s.duplicateCopies = b.duplicate_copies;
      if (b.answer_timeout_ms !== undefined) s.answerTimeoutMs = b.answer_timeout_ms;
      if (b.delivery_concurrency !== undefined) s.concurrency = b.delivery_concurrency;
      svc.deliveries.wake();
      return { data: settingsView(svc) };
    },
  },
  { method: 'GET', path: '/sandbox/faults', run: ({ faults, account }) => ({ data: faults.list(account) }) },
  {
    method: 'POST',
    path: '/sandbox/faults',
    body: z.strictObject({
      kind: z.enum(faultKinds as [string, ...string[]], { message: `must be one of: ${faultKinds.join(', ')}` }),
      count: z.number().int().min(1, 'must be from 1 to 1000').max(1000, 'must be from 1 to 1000'),
      status: z
        .union([z.literal(500), z.literal(502), z.literal(503), z.literal(504)], { message: 'must be 500, 502, 503 or 504' })
        .optional(),
      retry_after: z.number().int().min(0).max(3600, 'must be from 0 to 3600').optional(),
      delay_ms: z.number().int().min(0).max(120_000, 'must be from 0 to 120000').optional(),
    }),
    run: ({ faults, account }, b) => {
      faults.add(account, b);
      return { data: faults.list(account), status: 201 };
    },
  },
  {
    method: 'DELETE',
    path: '/sandbox/faults',
    run: ({ faults, account }) => {
      faults.clear(account);
      return { data: [] };
    },
  },
  {
    method: 'DELETE',
    path: '/sandbox/webhook',
    run: ({ svc, account }) => {
      svc.resetWebhook(account);
      return { data: { deleted: true } };
    },
  },
];

/** Whether the write side serves this path (so the server routes it here). */
export function isControlPath(path: string): boolean {
  return controlRoutes.some((r) => r.path === path);
}

export function handleControl(ctx: ControlContext, method: string, path: string, body: unknown): WriteResult {
  const candidates = controlRoutes.filter((r) => r.path === path);
  if (!candidates.length) throw new ApiError(404, 'not_found', `no sandbox control at ${path}`);
  const route = candidates.find((r) => r.method === method);
  if (!route) {
    const allow = candidates.map((r) => r.method).join(', ');
    throw new ApiError(405, 'method_not_allowed', `${path} accepts ${allow}`, undefined, { Allow: allow });
  }
  let input: unknown = body ?? {};
  if (route.body) {
    const parsed = route.body.safeParse(input);
    if (!parsed.success) {
      const e = validationErrorFromIssues(parsed.error.issues, input);
      throw new ApiError(400, 'invalid_parameter', e.message, e.field || 'body');
    }
    input = parsed.data;
  }
  return route.run(ctx, input);
}
