/**
 * The bundle's entry: what the global functions of src/globals.js call (esbuild puts these under one global,
 * CompanyDataAddon). Apps Script finds menu items, triggers and google.script.run targets only among
 * top-level function declarations, which a bundle hides: globals.js declares them and calls in here.
 */
import { enrichSheetEntry } from './enrich';
import { keepCurrentEntry } from './keep-current';
import { errorText, runStatus, type AddonReport } from './reports';
import { onTrigger, scheduleEntry, unscheduleEntry } from './triggers';
import { publicSettings, saveSettings as save } from './settings';
import { sheetChoices, priceOf } from './sidebar-data';

export const MENU = [
  ['Open Company Data', 'showSidebar'],
  ['Enrich this sheet', 'enrichSheet'],
  ['Keep current now', 'keepCurrent'],
] as const;

/** onOpen / onInstall: the menu only (in AuthMode.NONE nothing else is in reach). */
export function addMenu(): void {
  const menu = SpreadsheetApp.getUi().createAddonMenu();
  for (const [caption, fn] of MENU) menu.addItem(caption, fn);
  menu.addToUi();
}

export function showSidebar(): void {
  SpreadsheetApp.getUi().showSidebar(HtmlService.createHtmlOutputFromFile('Sidebar').setTitle('Company Data'));
}

export function saveSettings(input: unknown): AddonReport {
  try {
    const o = (input ?? {}) as { apiKey?: unknown; baseUrl?: unknown; chatWebhookUrl?: unknown };
    const saved = save(o);
    return { ...saved, message: 'Settings saved.' };
  } catch (e) {
    // The key is never part of the message: the checks name the field and the rule only.
    return { status: 'refused', message: errorText(e) };
  }
}

export {
  enrichSheetEntry as enrichSheet,
  keepCurrentEntry as keepCurrent,
  scheduleEntry as scheduleKeepCurrent,
  unscheduleEntry as unscheduleKeepCurrent,
  onTrigger,
  runStatus,
  publicSettings,
  sheetChoices,
  priceOf,
};
