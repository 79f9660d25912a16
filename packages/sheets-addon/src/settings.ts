/**
 * The user's settings: the API key in the user's own properties only (never a document property, which every
 * editor's scripts can read, never a cell, a log or an answer), with the service address and chat webhook.
 */
export interface Settings {
  apiKey?: string;
  baseUrl: string;
  chatWebhookUrl?: string;
}

export const DEFAULT_BASE_URL = 'https://api.company-data.ee';
const KEY = 'companyData.apiKey';
const BASE = 'companyData.baseUrl';
const CHAT = 'companyData.chatWebhookUrl';
/** Set once the service accepted the saved key; a new key clears it, so that key is checked again. */
const KEY_CHECKED = 'companyData.apiKeyChecked';

/** Whether the saved key was accepted by the service since it was saved. */
export function keyChecked(): boolean {
  return PropertiesService.getUserProperties().getProperty(KEY_CHECKED) === 'yes';
}

/** Records the service's verdict on the saved key (true: accepted; false: refused or not known). */
export function markKeyChecked(ok: boolean): void {
  const p = PropertiesService.getUserProperties();
  if (ok) p.setProperty(KEY_CHECKED, 'yes');
  else p.deleteProperty(KEY_CHECKED);
}

export function readSettings(): Settings {
  const p = PropertiesService.getUserProperties();
  const apiKey = p.getProperty(KEY) ?? undefined;
  const chat = p.getProperty(CHAT) ?? undefined;
  return { ...(apiKey ? { apiKey } : {}), baseUrl: p.getProperty(BASE) ?? DEFAULT_BASE_URL, ...(chat ? { chatWebhookUrl: chat } : {}) };
}

/** What the sidebar may show: whether a key is saved, never the key. */
export function publicSettings(): { apiKeySaved: boolean; baseUrl: string; chatWebhookUrl: string } {
  const s = readSettings();
  return { apiKeySaved: !!s.apiKey, baseUrl: s.baseUrl, chatWebhookUrl: s.chatWebhookUrl ?? '' };
}

function httpsUrl(field: string, value: string): string {
  const v = value.trim().replace(/\/+$/, '');
  if (!/^https?:\/\/[^\s/]+/i.test(v)) throw new Error(`${field}: must be a web address starting with https:// (got something else)`);
  return v;
}

/** Saves what is given; an empty chatWebhookUrl removes it. Returns the public view (no key). */
export function saveSettings(input: { apiKey?: unknown; baseUrl?: unknown; chatWebhookUrl?: unknown }) {
  const p = PropertiesService.getUserProperties();
  const apiKey = typeof input.apiKey === 'string' ? input.apiKey.trim() : '';
  if (input.apiKey !== undefined && apiKey === '' && !p.getProperty(KEY))
    throw new Error('apiKey: must not be empty (paste the key from your Company Data account)');
  if (apiKey && /\s/.test(apiKey)) throw new Error('apiKey: must not contain spaces (paste the key alone)');
  if (input.baseUrl !== undefined && input.baseUrl !== '') p.setProperty(BASE, httpsUrl('baseUrl', String(input.baseUrl)));
  if (input.chatWebhookUrl !== undefined) {
    const chat = String(input.chatWebhookUrl).trim();
    if (chat) p.setProperty(CHAT, httpsUrl('chatWebhookUrl', chat));
    else p.deleteProperty(CHAT);
  }
  if (apiKey) {
    p.setProperty(KEY, apiKey);
    p.deleteProperty(KEY_CHECKED);
  }
  return { status: 'done' as const, ...publicSettings() };
}
