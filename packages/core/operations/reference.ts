import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, param, trimmedText } from '../params';
import { classifierEntrySchema, emtakCodeSchema, usageSchema } from '../schemas/monitoring';
import { classifierTypes, classifierTypeSchema } from '../vocabulary';

const base = { group: 'reference', retry: 'safe', method: 'GET' } as const;

export const classifiers = defineOperation({
  ...base,
  name: 'classifiers',
  label: 'Get Code List',
  action: 'Get classifier codes',
  description: 'Codes and labels of a classifier, e.g. roles or legal forms',
  path: '/classifiers/{type}',
  params: {
    type: param({
      in: 'path',
      schema: classifierTypeSchema,
      label: 'Code List',
      description: 'Which classifier to read',
      options: classifierTypes.map((t) => ({ value: t, label: t.replace(/_/g, ' ').replace(/^./, (c) => c.toUpperCase()) })),
    }),
    lang: p.lang,
  },
  response: z.array(classifierEntrySchema),
  source: 'shown',
});

export const emtak = defineOperation({
  ...base,
  name: 'emtak',
  label: 'Search Activity Codes',
  action: 'Search EMTAK activity codes',
  description: 'Find EMTAK activity codes by code prefix or words of the title',
  path: '/emtak',
  params: {
    q: param({
      in: 'query',
      schema: trimmedText(1).optional(),
      label: 'Code or Words',
      description: 'Code prefix (e.g. 62) or words of the title',
      optional: true,
    }),
    version: param({
      in: 'query',
      schema: z.union([z.literal(2008), z.literal(2025)], { message: 'must be 2008 or 2025' }).optional(),
      label: 'Edition',
      description: 'EMTAK edition: 2008 or 2025',
      optional: true,
    }),
    page: p.page,
    limit: p.limit,
    lang: p.lang,
  },
  response: z.array(emtakCodeSchema),
  paged: true,
  source: 'decided',
});

export const usage = defineOperation({
  ...base,
  name: 'usage',
  label: 'Get Usage',
  action: 'Get API usage',
  description: 'Requests and billed lookup queries of the current month, and monitored companies',
  path: '/usage',
  params: {},
  response: usageSchema,
  source: 'decided',
});

export const openapi = defineOperation({
  ...base,
  name: 'openapi',
  label: 'Get OpenAPI Description',
  action: 'Get the OpenAPI description',
  description: 'The machine-readable description of the interface (OpenAPI 3.1)',
  path: '/openapi.json',
  params: {},
  response: z.looseObject({ openapi: z.string(), info: z.looseObject({ version: z.string() }) }),
  rawResponse: true,
  noAuth: true,
  notATool: 'Offered to assistants as a resource to read (company-data://openapi.json), not as an action.',
  source: 'shown',
});
