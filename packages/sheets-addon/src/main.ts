/**
 * The bundle's entry: what the global functions of src/globals.js call (esbuild puts these under one global,
 * CompanyDataAddon). Apps Script finds menu items, triggers and google.script.run targets only among
 * top-level function declarations, which a bundle hides: globals.js declares them and calls in here.
 */
import { AuthenticationError } from '@company-data/core/errors';
import { newRuntime } from './clock';
import { clientOf, enrichSheetEntry, ensureKeyChecked } from './enrich';
import { keepCurrentEntry } from './keep-current';
import { errorText, runStatus, type AddonReport } from './reports';
import { onTrigger, scheduleEntry, unscheduleEntry } from './triggers';
import { keyChecked, publicSettings, saveSettings as save } from './settings';
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

export async function saveSettings(input: unknown): Promise<AddonReport> {
  let saved;
  try {
    const o = (input ?? {}) as { apiKey?: unknown; baseUrl?: unknown; chatWebhookUrl?: unknown };
    saved = save(o);
  } catch (e) {
    // The key is never part of the message: the checks name the field and the rule only.
    return { status: 'refused', message: errorText(e) };
  }
  if (!saved.apiKeySaved || keyChecked()) return { ...saved, message: 'Settings saved.' };
  // The key is checked when it is saved (one free request), so the runs after it need not check it again.
  try {
    const rt = newRuntime();
    await rt.loop.run(() => ensureKeyChecked(clientOf(rt)));
    return { ...saved, apiKeyWorks: true, message: 'Settings saved. The service accepted the key.' };
  } catch (e) {
    const refused = e instanceof AuthenticationError;
    return {
      ...saved,
      ...(refused ? { apiKeyWorks: false } : {}),
      message: refused
        ? `Settings saved, but the service refused this key: ${errorText(e)}`
        : `Settings saved. The key could not be checked now (${errorText(e)}); the next run checks it.`,
    };
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
