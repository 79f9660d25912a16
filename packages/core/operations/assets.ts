import { z } from 'zod/v4';
import { defineOperation } from '../operation';
import { p } from '../params';
import { embeddedList } from '../schemas/common';
import {
  announcementSchema,
  consumerDisputeSchema,
  domainSchema,
  permitSchema,
  propertySchema,
  statePaymentSchema,
} from '../schemas/records';

/*
 * The spec shows no paths for these records, only the profile's include sections. Each operation
 * reads the profile with one include and returns that section: its first 25 rows and the total.
 */
const section = <T extends z.ZodType>(name: string, label: string, action: string, description: string, key: string, row: T) =>
  defineOperation({
    group: 'assets',
    name,
    label,
    action,
    description,
    method: 'GET',
    path: '/companies/{registry_code}',
    params: { registry_code: p.registryCode, lang: p.lang },
    fixedQuery: { include: key },
    select: key,
    response: embeddedList(row),
    retry: 'safe',
    source: 'shown',
  });

export const properties = section(
  'properties',
  'Get Real Estate',
  'Get real estate of a company',
  'Real estate owned by the company (first 25 and the total)',
  'properties',
  propertySchema,
);
export const domains = section(
  'domains',
  'Get Domains',
  'Get domains of a company',
  'Internet domains registered to the company (first 25 and the total)',
  'domains',
  domainSchema,
);
export const permits = section(
  'permits',
  'Get Permits',
  'Get permits of a company',
  'Activity licences and permits (first 25 and the total)',
  'permits',
  permitSchema,
);
export const statePayments = section(
  'statePayments',
  'Get State Payments',
  'Get payments from the state',
  'Payments the company received from the state (first 25 and the total)',
  'state_payments',
  statePaymentSchema,
);
export const announcements = section(
  'announcements',
  'Get Official Notices',
  'Get official notices of a company',
  'Notices published about the company (first 25 and the total)',
  'announcements',
  announcementSchema,
);
export const consumerDisputes = section(
  'consumerDisputes',
  'Get Consumer Disputes',
  'Get consumer disputes of a company',
  'Consumer dispute committee cases (first 25 and the total)',
  'consumer_disputes',
  consumerDisputeSchema,
);
