import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, param, registryCodeSchema, trimmedText } from '../params';
import { text } from '../text-length';
import { monitoringCategories, monitoringChangeEventSchema } from '../schemas/events';
import { obj } from '../schemas/common';
import { listCompaniesChangeSchema, listCompanySchema, monitoringListSchema } from '../schemas/monitoring';

const base = { group: 'monitoring', plan: 'api' } as const;
const listId = param({
  in: 'path',
  schema: z.string().regex(/^lst_[A-Za-z0-9]+$/, 'must look like lst_ followed by letters and digits'),
  label: 'List ID',
  description: 'ID of the monitoring list, e.g. lst_8f2k1',
  picker: 'monitoringList',
});
const categoryEnum = z.enum(monitoringCategories, { message: `must be one of: ${monitoringCategories.join(', ')}` });
const categoryOptions = monitoringCategories.map((c) => ({ value: c, label: c[0]!.toUpperCase() + c.slice(1) }));
const categories = param({
  in: 'body',
  schema: z.array(categoryEnum).optional(),
  label: 'Categories',
  description: 'Follow only these kinds of change. Empty: all categories.',
  options: categoryOptions,
  optional: true,
});

export const createList = defineOperation({
  ...base,
  name: 'createList',
  label: 'Create List',
  action: 'Create a monitoring list',
  description: 'Create a list of companies to watch for changes',
  method: 'POST',
  path: '/monitoring/lists',
  params: {
    name: param({ in: 'body', schema: trimmedText(1, 200), label: 'Name', description: 'Name of the list' }),
    categories,
  },
  response: monitoringListSchema,
  answers: { success: { 201: 'Created' } },
  retry: 'unprocessed-only',
  source: 'shown',
});

export const addCompanies = defineOperation({
  ...base,
  name: 'addCompanies',
  label: 'Add Companies',
  action: 'Add companies to a monitoring list',
  description: 'Add up to 2000 companies to a list, or replace the whole list with the given set',
  method: 'POST',
  path: '/monitoring/lists/{list_id}/companies',
  params: {
    list_id: listId,
    add: param({
      in: 'body',
      schema: z
        .array(
          obj({
            registry_code: registryCodeSchema,
            external_ref: text({ max: 200 }).optional(),
            categories: z.array(categoryEnum).optional(),
          }),
        )
        .max(2000, 'at most 2000 companies per request'),
      label: 'Companies',
      description: 'Companies to add: registry code and an optional external reference returned in every event',
    }),
    replace: param({
      in: 'body',
      schema: z.boolean().optional(),
      label: 'Replace Whole List',
      description: 'Whether to make the list exactly the given companies, removing all others',
      optional: true,
    }),
  },
  response: listCompaniesChangeSchema,
  retry: 'safe',
  source: 'shown',
});

export const events = defineOperation({
  ...base,
  name: 'events',
  label: 'Get Events',
  action: 'Get change events',
  description: 'Read change events of monitored companies, oldest first, from a cursor',
  method: 'GET',
  path: '/monitoring/events',
  params: {
    after: param({
      in: 'query',
      schema: z
        .string()
        .regex(/^evt_\d+$/, 'must be an event id like evt_123')
        .optional(),
      label: 'After Event ID',
      description: 'Return events after this event id (the cursor). Empty: from the oldest kept event.',
      optional: true,
    }),
    list_id: param({
      in: 'query',
      schema: z.string().optional(),
      label: 'List ID',
      description: 'Only events naming this list',
      optional: true,
      picker: 'monitoringList',
    }),
    category: param({
      in: 'query',
      schema: z.array(categoryEnum).optional(),
      label: 'Categories',
      description: 'Only these categories',
      options: categoryOptions,
      optional: true,
    }),
    limit: p.limit,
  },
  response: z.array(monitoringChangeEventSchema),
  meta: obj({ request_id: z.string(), next_cursor: z.string().nullable(), has_more: z.boolean() }),
  retry: 'safe',
  source: 'shown',
});

/* ---- Operations the spec names but does not show (paths decided: docs/decisions/service-interface.md, "Monitoring, saved searches, webhook: paths decided") ---- */

export const lists = defineOperation({
  ...base,
  name: 'lists',
  label: 'Get Lists',
  action: 'Get monitoring lists',
  description: 'All monitoring lists of the account',
  method: 'GET',
  path: '/monitoring/lists',
  params: {},
  response: z.array(monitoringListSchema),
  retry: 'safe',
  source: 'decided',
});

export const getList = defineOperation({
  ...base,
  name: 'getList',
  label: 'Get List',
  action: 'Get a monitoring list',
  description: 'One monitoring list with its categories and company count',
  method: 'GET',
  path: '/monitoring/lists/{list_id}',
  params: { list_id: listId },
  response: monitoringListSchema,
  retry: 'safe',
  source: 'decided',
});

export const updateList = defineOperation({
  ...base,
  name: 'updateList',
  label: 'Update List',
  action: 'Rename a list or set its categories',
  description: 'Rename a monitoring list or choose the categories it follows',
  method: 'PATCH',
  path: '/monitoring/lists/{list_id}',
  params: {
    list_id: listId,
    name: param({
      in: 'body',
      schema: trimmedText(1, 200).optional(),
      label: 'Name',
      description: 'New name of the list',
      optional: true,
    }),
    categories,
  },
  response: monitoringListSchema,
  retry: 'safe',
  source: 'decided',
});

export const deleteList = defineOperation({
  ...base,
  name: 'deleteList',
  label: 'Delete List',
  action: 'Delete a monitoring list',
  description: 'Delete a list; its companies stop being monitored unless another list holds them',
  method: 'DELETE',
  path: '/monitoring/lists/{list_id}',
  params: { list_id: listId },
  response: obj({ id: z.string(), deleted: z.boolean() }),
  retry: 'safe',
  source: 'decided',
});

export const listCompanies = defineOperation({
  ...base,
  name: 'listCompanies',
  label: 'Get List Companies',
  action: 'Get companies of a monitoring list',
  description: 'Companies on a monitoring list with their external references',
  method: 'GET',
  path: '/monitoring/lists/{list_id}/companies',
  params: { list_id: listId, page: p.page, limit: p.limit },
  response: z.array(listCompanySchema),
  paged: true,
  retry: 'safe',
  source: 'decided',
});

export const updateCompany = defineOperation({
  ...base,
  name: 'updateCompany',
  label: 'Set Company Categories',
  action: 'Set categories of one monitored company',
  description: 'Choose which kinds of change to follow for one company on a list',
  method: 'PATCH',
  path: '/monitoring/lists/{list_id}/companies/{registry_code}',
  params: {
    list_id: listId,
    registry_code: p.registryCode,
    categories,
    external_ref: param({
      in: 'body',
      schema: text({ max: 200 }).nullable().optional(),
      label: 'External Reference',
      description: 'Your own reference returned in every event',
      optional: true,
    }),
  },
  response: listCompanySchema,
  retry: 'safe',
  source: 'decided',
});

export const removeCompany = defineOperation({
  ...base,
  name: 'removeCompany',
  label: 'Remove Company',
  action: 'Remove a company from a monitoring list',
  description: 'Stop monitoring a company on this list',
  method: 'DELETE',
  path: '/monitoring/lists/{list_id}/companies/{registry_code}',
  params: { list_id: listId, registry_code: p.registryCode },
  response: obj({ registry_code: z.string(), removed: z.boolean() }),
  retry: 'safe',
  source: 'decided',
});
