/**
 * Errors as Apps Script raises them. A service's error reaches the script as an Error whose name is
 * "Exception" (String(e) reads "Exception: <message>", as Google's execution log shows it).
 */
export class ScriptException extends Error {
  override name = 'Exception';
}

/** Google's wording, kept in one place so the stand-in's tests can check each one. */
export const MESSAGES = {
  rowsMismatch: (data: number, range: number) =>
    `The number of rows in the data does not match the number of rows in the range. The data has ${data} but the range has ${range}.`,
  columnsMismatch: (data: number, range: number) =>
    `The number of columns in the data does not match the number of columns in the range. The data has ${data} but the range has ${range}.`,
  outsideSheet: 'The coordinates of the range are outside the dimensions of the sheet.',
  rangeNotFound: 'Range not found',
  startRowTooSmall: 'The starting row of the range is too small.',
  startColumnTooSmall: 'The starting column of the range is too small.',
  rowsAtLeastOne: 'The number of rows in the range must be at least 1.',
  columnsAtLeastOne: 'The number of columns in the range must be at least 1.',
  cellLimit: 'This action would increase the number of cells in the workbook above the limit of 10000000 cells.',
  cellTooLong: 'Your input contains more than the maximum of 50000 characters in a single cell.',
  protectedCell:
    'You are trying to edit a protected cell or object. Please contact the spreadsheet owner to remove protection if you need to edit.',
  noPermission: 'You do not have permission to perform that action.',
  sheetExists: (name: string) => `A sheet with the name "${name}" already exists. Please enter another name.`,
  lastVisibleSheet: "You can't remove all the visible sheets in a document.",
  signature: (service: string, method: string, args: unknown[]) =>
    `The parameters (${args.map(typeName).join(',')}) don't match the method signature for ${service}.${method}.`,
  notPermittedCall: (what: string, scope: string) => `You do not have permission to call ${what}. Required permissions: ${scope}`,
  uiContext: 'Cannot call SpreadsheetApp.getUi() from this context.',
  urlFetchQuota: 'Service invoked too many times for one day: urlfetch.',
  urlTooLong: 'Limit Exceeded: URLFetch URL Length.',
  requestFailed: (origin: string, code: number, body: string) =>
    `Request failed for ${origin} returned code ${code}. Truncated server response: ${body.slice(0, 200)} (use muteHttpExceptions option to examine full response)`,
  addressUnavailable: (url: string) => `Address unavailable: ${url}`,
  lockTimeout: 'Lock timeout: another process was holding the lock for too long.',
  propertyValueTooLarge: 'Argument too large: value',
  propertyStoreFull: 'You have exceeded the property storage quota. Please remove some properties and try again.',
  tooManyAddonTriggers: 'This add-on has created too many time-based triggers in this document for this Google user account.',
  tooManyTriggers: 'This script has too many triggers. Triggers must be deleted from the script before more can be added.',
  timeLimit: 'Exceeded maximum execution time',
  triggerRuntime: 'Service using too much computer time for one day',
  tooManySimultaneous: 'There are too many scripts running.',
  tooManyHeaders: 'Limit Exceeded: URLFetch headers.',
  payloadTooLarge: 'Limit Exceeded: URLFetch POST Size.',
  invalidArgument: (name: string) => `Invalid argument: ${name}`,
};

/** How Google names an argument's type in a signature error: (String,number), (number[][]), (Object). */
export function typeName(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return 'String';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'Boolean';
  if (v instanceof Date) return 'Date';
  if (Array.isArray(v)) return `${v.length && Array.isArray(v[0]) ? 'Object[]' : 'Object'}[]`;
  return 'Object';
}
