import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, param, trimmedText } from '../params';
import { text } from '../text-length';
import { obj } from '../schemas/common';
import { searchMatchesEventSchema } from '../schemas/events';
import { savedSearchSchema } from '../schemas/monitoring';
import { companyStatusCodeSchema } from '../vocabulary';

const base = { group: 'searches', plan: 'api' } as const;
const searchId = param({
  in: 'path',
  schema: z.string().regex(/^srch_[A-Za-z0-9]+$/, 'must look like srch_ followed by letters and digits'),
  label: 'Saved Search ID',
  description: 'ID of the saved search, e.g. srch_4hd82',
  picker: 'savedSearch',
});

/**
 * Filter keys shown by the spec: activity, county, registered_within_days. Added (documented in
 * docs/decisions/service-interface.md, "Monitoring, saved searches, webhook: paths decided"): legal_form and status, with the same meaning as in company search.
 */
export const savedSearchFiltersSchema = z.strictObject({
  activity: z.array(z.string().regex(/^\d{1,5}$/, 'each activity must be an EMTAK code prefix of 1 to 5 digits')).optional(),
  county: z.array(text({ min: 1 })).optional(),
  registered_within_days: z.number().int('must be a whole number').min(1, 'must be 1 or more').max(3650, 'must be at most 3650').optional(),
  legal_form: z.array(text({ min: 1 })).optional(),
  status: z.array(companyStatusCodeSchema()).optional(),
});

export const create = defineOperation({
  ...base,
  name: 'create',
  label: 'Create',
  action: 'Create a saved search',
  description: 'Store company filters; companies that start to match are reported every morning',
  method: 'POST',
  path: '/searches',
  params: {
    name: param({ in: 'body', schema: trimmedText(1, 200), label: 'Name', description: 'Name of the saved search' }),
    filters: param({
      in: 'body',
      schema: savedSearchFiltersSchema,
      label: 'Filters',
      description: 'Which companies to watch for. Companies that start to meet every filter set here are reported each morning.',
    }),
  },
  response: savedSearchSchema,
  answers: { success: { 201: 'Created' } },
  retry: 'unprocessed-only',
  source: 'shown',
});

export const matches = defineOperation({
  ...base,
  name: 'matches',
  label: 'Get Matches',
  action: 'Get new matches of a saved search',
  description: 'Read the daily new-match events of a saved search, oldest first, from a cursor',
  method: 'GET',
  path: '/searches/{search_id}/matches',
  params: {
    search_id: searchId,
    after: param({
      in: 'query',
      schema: z
        .string()
        .regex(/^evt_srch_[A-Za-z0-9]+_\d{8}_\d+$/, 'must be a match event id like evt_srch_4hd82_20261120_1')
        .optional(),
      label: 'After Event ID',
      description:
        "Return match events after this event id (the cursor), as in next_cursor: evt_, the search id, the day (YYYYMMDD) and a number; an id of another search's events is refused with 400",
      optional: true,
    }),
    limit: p.limit,
  },
  response: z.array(searchMatchesEventSchema),
  meta: obj({ request_id: z.string(), next_cursor: z.string().nullable(), has_more: z.boolean() }),
  retry: 'safe',
  source: 'shown',
});

export const list = defineOperation({
  ...base,
  name: 'list',
  label: 'Get Many',
  action: 'Get saved searches',
  description: 'All saved searches of the account',
  method: 'GET',
  path: '/searches',
  params: {},
  response: z.array(savedSearchSchema),
  retry: 'safe',
  source: 'decided',
});

export const get = defineOperation({
  ...base,
  name: 'get',
  label: 'Get',
  action: 'Get a saved search',
  description: 'One saved search with its filters',
  method: 'GET',
  path: '/searches/{search_id}',
  params: { search_id: searchId },
  response: savedSearchSchema,
  retry: 'safe',
  source: 'decided',
});

export const remove = defineOperation({
  ...base,
  name: 'remove',
  label: 'Delete',
  action: 'Delete a saved search',
  description: 'Delete a saved search; no more matches are reported for it',
  method: 'DELETE',
  path: '/searches/{search_id}',
  params: { search_id: searchId },
  response: obj({ id: z.string(), deleted: z.boolean() }),
  retry: 'safe',
  source: 'decided',
});
