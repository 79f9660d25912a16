import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Lang } from '@company-data/core/schemas/common';
import { langs } from '@company-data/core/vocabulary';
import type { GoogleAuthentication } from '../descriptions/common';
import { sheetsApiRoot, spreadsheetIdOf } from '../transport/sheets-api';

/** A parameter the user set wrong: named, with the rule, before anything is read or sent. */
export const invalidField = (ctx: IExecuteFunctions, field: string, rule: string, todo: string) =>
  new NodeOperationError(ctx.getNode(), `${field}: ${rule}`, { description: todo });

/** The fields every operation of the node has: the sheet, how to reach it, its key column and the language. */
export interface SheetParams {
  authentication: GoogleAuthentication;
  spreadsheetId: string;
  sheet: unknown;
  column?: string;
  lang: Lang;
  root: string;
}

export function readSheetParams(ctx: IExecuteFunctions): SheetParams {
  const options = ctx.getNodeParameter('options', 0, {}) as IDataObject;
  const lang = options.lang === undefined || options.lang === '' ? 'en' : String(options.lang);
  if (!(langs as readonly string[]).includes(lang))
    throw invalidField(ctx, 'Language', `must be one of ${langs.join(', ')}`, 'Pick a language from the list.');
  const column = String(ctx.getNodeParameter('keyColumn', 0, '') ?? '').trim();
  return {
    authentication: ctx.getNodeParameter('authentication', 0, 'serviceAccount') as GoogleAuthentication,
    spreadsheetId: spreadsheetIdOf(ctx.getNodeParameter('spreadsheet', 0, undefined, { extractValue: true })),
    sheet: ctx.getNodeParameter('sheet', 0, undefined),
    ...(column ? { column } : {}),
    lang: lang as Lang,
    root: sheetsApiRoot(options),
  };
}
