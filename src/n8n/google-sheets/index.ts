export { executeGoogleSheets } from './actions/router';
export { googleSheetsProperties } from './descriptions';
export { googleSheetsMethods } from './methods';
