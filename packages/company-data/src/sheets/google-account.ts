import { existsSync, mkdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../files/atomic-file';
import { defaultStateDir } from './state-dir';
import type { GoogleCredentials } from './google-auth';

/**
 * The Google account signed in with `company-data auth login`, kept in the state folder as an
 * authorized-user file (the shape gcloud and google-auth-library read: type, client_id, client_secret,
 * refresh_token), plus the account's email and where to renew and revoke. Readable by its owner only.
 */
export interface StoredAccount {
  type: 'authorized_user';
  client_id: string;
  client_secret: string;
  refresh_token: string;
  token_uri: string;
  revoke_uri: string;
  /** The account's email (from the sign-in's ID token), when Google gave one. */
  account?: string;
  scope: string;
  signed_in_at: string;
}

export const ACCOUNT_FILE_NAME = 'google-account.json';

export function accountFile(stateDir?: string): string {
  return join(stateDir ?? defaultStateDir(), ACCOUNT_FILE_NAME);
}

/** The signed-in account, or undefined when nobody is signed in; a damaged file is named, never quoted. */
export function readAccount(stateDir?: string): { path: string; stored: StoredAccount } | undefined {
  const path = accountFile(stateDir);
  if (!existsSync(path)) return undefined;
  let stored: Partial<StoredAccount>;
  try {
    stored = JSON.parse(readFileSync(path, 'utf8')) as Partial<StoredAccount>;
  } catch {
    throw new Error(`google-account: ${path} is not readable JSON; delete it and sign in again with \`company-data auth login\``);
  }
  if (!stored.client_id || !stored.client_secret || !stored.refresh_token || !stored.token_uri)
    throw new Error(
      `google-account: ${path} lacks the sign-in's client or refresh token; delete it and sign in again with \`company-data auth login\``,
    );
  return { path, stored: stored as StoredAccount };
}

/** Saves the sign-in atomically with mode 0600 (also over an older file with looser permissions: writeFileAtomic); returns the path. */
export function saveAccount(stored: StoredAccount, stateDir?: string): string {
  const dir = stateDir ?? defaultStateDir();
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = accountFile(dir);
  writeFileAtomic(path, JSON.stringify(stored, null, 2) + '\n', 0o600);
  return path;
}

export function removeAccount(stateDir?: string): boolean {
  try {
    unlinkSync(accountFile(stateDir));
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return false;
    throw e;
  }
}

/** Credentials for --google-account. */
export function accountCredentials(stateDir?: string): GoogleCredentials {
  const found = readAccount(stateDir);
  if (!found)
    throw new Error(
      `google-account: nobody is signed in (no ${accountFile(stateDir)}); sign in first with \`company-data auth login --client-file <client.json>\``,
    );
  const s = found.stored;
  return {
    oauth: {
      clientId: s.client_id,
      clientSecret: s.client_secret,
      refreshToken: s.refresh_token,
      tokenUrl: s.token_uri,
      ...(s.account ? { account: s.account } : {}),
      source: 'google-account',
    },
  };
}
