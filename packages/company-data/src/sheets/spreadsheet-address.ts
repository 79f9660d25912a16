/**
 * --spreadsheet takes the spreadsheet's ID or its address as the browser shows it, by the one rule the
 * n8n node's Spreadsheet field uses too (the core's spreadsheet-address).
 */
export { spreadsheetIdOf } from '@company-data/core/sheets/google/spreadsheet-address';
