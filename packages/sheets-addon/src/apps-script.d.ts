/**
 * The parts of Google Apps Script's services the add-on calls, typed from Google's reference
 * (developers.google.com/apps-script/reference). Globals of the Apps Script runtime, not modules.
 */
declare namespace GoogleAppsScript {
  interface Range {
    getValues(): unknown[][];
    setValues(values: unknown[][]): Range;
    setNumberFormat(format: string): Range;
    getRow(): number;
    getColumn(): number;
    getNumRows(): number;
    getNumColumns(): number;
    getA1Notation(): string;
  }
  interface Protection {
    getRange(): Range;
    canEdit(): boolean;
    isWarningOnly(): boolean;
    getDescription(): string;
    getUnprotectedRanges(): Range[];
  }
  interface Sheet {
    getName(): string;
    getSheetId(): number;
    getRange(row: number, column: number, numRows?: number, numColumns?: number): Range;
    getDataRange(): Range;
    getLastRow(): number;
    getLastColumn(): number;
    getMaxRows(): number;
    getMaxColumns(): number;
    insertColumnsAfter(afterPosition: number, howMany: number): Sheet;
    insertRowsAfter(afterPosition: number, howMany: number): Sheet;
    hideSheet(): Sheet;
    isSheetHidden(): boolean;
    getProtections(type: unknown): Protection[];
    clear(): Sheet;
  }
  interface Spreadsheet {
    getId(): string;
    getName(): string;
    getSheets(): Sheet[];
    getSheetByName(name: string): Sheet | null;
    getActiveSheet(): Sheet;
    insertSheet(name: string): Sheet;
    deleteSheet(sheet: Sheet): void;
  }
  interface Ui {
    createMenu(caption: string): Menu;
    createAddonMenu(): Menu;
    showSidebar(html: unknown): void;
  }
  interface Menu {
    addItem(caption: string, functionName: string): Menu;
    addSeparator(): Menu;
    addToUi(): void;
  }
  interface HTTPResponse {
    getResponseCode(): number;
    getContentText(): string;
    getAllHeaders(): Record<string, string | string[]>;
  }
  interface FetchRequest {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    payload?: string;
    contentType?: string;
    muteHttpExceptions?: boolean;
    followRedirects?: boolean;
  }
  interface Lock {
    tryLock(timeoutInMillis: number): boolean;
    releaseLock(): void;
    hasLock(): boolean;
  }
  interface Properties {
    getProperty(key: string): string | null;
    setProperty(key: string, value: string): Properties;
    deleteProperty(key: string): Properties;
  }
  interface Trigger {
    getHandlerFunction(): string;
    getUniqueId(): string;
  }
  interface ClockTriggerBuilder {
    after(durationMilliseconds: number): ClockTriggerBuilder;
    everyHours(n: number): ClockTriggerBuilder;
    create(): Trigger;
  }
  interface TriggerBuilder {
    timeBased(): ClockTriggerBuilder;
  }
}

declare const SpreadsheetApp: {
  getActiveSpreadsheet(): GoogleAppsScript.Spreadsheet;
  getUi(): GoogleAppsScript.Ui;
  flush(): void;
  ProtectionType: { RANGE: unknown; SHEET: unknown };
};
declare const UrlFetchApp: {
  fetch(url: string, params?: Omit<GoogleAppsScript.FetchRequest, 'url'>): GoogleAppsScript.HTTPResponse;
  fetchAll(requests: GoogleAppsScript.FetchRequest[]): GoogleAppsScript.HTTPResponse[];
};
declare const LockService: { getDocumentLock(): GoogleAppsScript.Lock | null };
declare const PropertiesService: {
  getUserProperties(): GoogleAppsScript.Properties;
  getDocumentProperties(): GoogleAppsScript.Properties;
};
declare const ScriptApp: {
  newTrigger(functionName: string): GoogleAppsScript.TriggerBuilder;
  getProjectTriggers(): GoogleAppsScript.Trigger[];
  deleteTrigger(trigger: GoogleAppsScript.Trigger): void;
};
declare const Utilities: { sleep(milliseconds: number): void };
declare const HtmlService: {
  createHtmlOutputFromFile(filename: string): { setTitle(title: string): unknown };
};
