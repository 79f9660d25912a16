import { monitoringHandlers } from '../monitoring/handlers';
import { searchHandlers } from '../searches/handlers';
import type { WriteHandlers } from './handler';
import { webhookHandlers } from './webhook-handlers';

/** Every write-side operation id (group.name of the operation table) → its handler. */
export const writeHandlers: WriteHandlers = { ...monitoringHandlers, ...searchHandlers, ...webhookHandlers };
