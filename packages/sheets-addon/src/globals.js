/**
 * The add-on's global functions: Apps Script calls menu items, triggers and google.script.run targets only
 * when they are top-level function declarations. Each calls into the bundle (CompanyDataAddon, addon.js).
 * Names and arguments are the add-on's interface: keep them exactly.
 */

/** Adds the menu; may run in AuthMode.NONE, where only the menu is in reach. */
function onOpen(e) {
  CompanyDataAddon.addMenu(e);
}

function onInstall(e) {
  onOpen(e);
}

function showSidebar() {
  CompanyDataAddon.showSidebar();
}

/** saveSettings({ apiKey, baseUrl?, chatWebhookUrl? }): the key goes to the user's properties only. */
function saveSettings(settings) {
  return CompanyDataAddon.saveSettings(settings);
}

/** enrichSheet({ sheetName?, keyColumn?, maxBilledQueries? }) */
function enrichSheet(options) {
  return CompanyDataAddon.enrichSheet(options);
}

/** keepCurrent({ sheetName? }) */
function keepCurrent(options) {
  return CompanyDataAddon.keepCurrent(options);
}

/** scheduleKeepCurrent({ sheetName?, everyHours }) */
function scheduleKeepCurrent(options) {
  return CompanyDataAddon.scheduleKeepCurrent(options);
}

function unscheduleKeepCurrent() {
  return CompanyDataAddon.unscheduleKeepCurrent();
}

/** The one time-driven trigger's handler: a continuation, or the keep-current schedule. */
function onAddonTrigger(e) {
  return CompanyDataAddon.onTrigger(e);
}

/** For the sidebar: the run under way and the last report, as plain values. */
function runStatus() {
  return CompanyDataAddon.runStatus();
}

/** For the sidebar: the settings without the key (only whether one is saved). */
function readSettings() {
  return CompanyDataAddon.publicSettings();
}

/** For the sidebar: the sheets and each one's columns. */
function sheetChoices() {
  return CompanyDataAddon.sheetChoices();
}

/** For the sidebar: the price before paying: queries to bill and answers already paid. */
function priceOf(options) {
  return CompanyDataAddon.priceOf(options);
}
