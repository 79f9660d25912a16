import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p, pagedListParams, param, trimmedText } from '../params';
import { holdingSchema, partyRoleSchema, personSchema, personSearchItemSchema, shareholderSchema } from '../schemas/people';

const peopleList = <T extends z.ZodType>(name: string, label: string, action: string, description: string, slug: string, item: T) =>
  defineOperation({
    group: 'people',
    name,
    label,
    action,
    description,
    method: 'GET',
    path: `/companies/{registry_code}/${slug}`,
    params: { registry_code: p.registryCode, history: p.history, q: p.q, ...pagedListParams },
    response: z.array(item),
    paged: true,
    retry: 'safe',
    source: 'shown',
  });

export const representatives = peopleList(
  'representatives',
  'Get Representatives',
  'Get representatives of a company',
  'Board members and others who may represent the company',
  'representatives',
  partyRoleSchema,
);
export const shareholders = peopleList(
  'shareholders',
  'Get Shareholders',
  'Get shareholders of a company',
  'Owners with stakes, largest first, including foreign owners',
  'shareholders',
  shareholderSchema,
);
export const beneficialOwners = peopleList(
  'beneficialOwners',
  'Get Beneficial Owners',
  'Get beneficial owners of a company',
  'Declared ultimate beneficial owners',
  'beneficial-owners',
  partyRoleSchema,
);
export const otherParties = peopleList(
  'otherParties',
  'Get Other Parties',
  'Get other parties of a company',
  'Supervisory board, auditors, founders, liquidators and similar roles without a stake',
  'other-parties',
  partyRoleSchema,
);
export const holdings = peopleList(
  'holdings',
  'Get Holdings',
  'Get holdings of a company',
  'Companies in which this company holds shares',
  'holdings',
  holdingSchema,
);

export const searchPersons = defineOperation({
  group: 'people',
  name: 'searchPersons',
  label: 'Search People',
  action: 'Search people',
  description: 'Find people and foreign organisations linked to Estonian companies by name (at most 200 results)',
  method: 'GET',
  path: '/persons',
  params: {
    q: param({
      in: 'query',
      schema: trimmedText(3),
      label: 'Name',
      description:
        'Name of the person or organisation, at least 3 characters; spaces around it do not count (a shorter one is refused with 400)',
    }),
    ...pagedListParams,
  },
  response: z.array(personSearchItemSchema),
  paged: true,
  qCap: 200,
  retry: 'safe',
  source: 'shown',
});

export const getPerson = defineOperation({
  group: 'people',
  name: 'getPerson',
  label: 'Get Person',
  action: 'Get a person and their roles',
  description: 'Get a person or organisation with their roles in companies (up to 1000, current first)',
  method: 'GET',
  path: '/persons/{id}',
  params: {
    id: param({
      in: 'path',
      schema: z.number().int('must be a whole number').positive('must be a positive number'),
      label: 'Person ID',
      description: "Person ID from a people search or from a company's people lists",
      picker: 'person',
    }),
    history: p.history,
    lang: p.lang,
  },
  response: personSchema,
  retry: 'safe',
  source: 'shown',
});
