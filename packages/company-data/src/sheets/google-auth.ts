import { readFileSync } from 'node:fs';
import { JWT, OAuth2Client } from 'googleapis-common';

export const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';

/**
 * Google credentials, one of:
 * - serviceAccountKeyFile: path to the JSON key of a service account (share the spreadsheet with its
 *   client_email). Requests carry a self-signed JWT (no token round trip).
 * - accessToken: an OAuth2 access token (for example from `gcloud auth print-access-token`).
 * - oauth: an OAuth2 client id, secret and refresh token; access tokens are refreshed as needed.
 */
export type GoogleCredentials =
  | { serviceAccountKeyFile: string }
  | { serviceAccountKey: { client_email: string; private_key: string } }
  | { accessToken: string }
  | { oauth: { clientId: string; clientSecret: string; refreshToken: string; tokenUrl?: string } };

export type GoogleAuthClient = OAuth2Client;

function readKeyFile(path: string): { client_email: string; private_key: string } {
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`google key file: cannot read ${path} as JSON (${(err as NodeJS.ErrnoException).code ?? 'invalid JSON'})`);
  }
  const k = json as { client_email?: unknown; private_key?: unknown };
  if (typeof k.client_email !== 'string' || typeof k.private_key !== 'string') {
    throw new Error(`google key file: ${path} must be a service-account key with client_email and private_key`);
  }
  return { client_email: k.client_email, private_key: k.private_key };
}

export function googleAuthClient(creds: GoogleCredentials): GoogleAuthClient {
  if ('accessToken' in creds) {
    const c = new OAuth2Client();
    c.setCredentials({ access_token: creds.accessToken });
    return c;
  }
  if ('oauth' in creds) {
    const c = new OAuth2Client({
      clientId: creds.oauth.clientId,
      clientSecret: creds.oauth.clientSecret,
      ...(creds.oauth.tokenUrl ? { endpoints: { oauth2TokenUrl: creds.oauth.tokenUrl } } : {}),
    });
    c.setCredentials({ refresh_token: creds.oauth.refreshToken });
    return c;
  }
  const key = 'serviceAccountKeyFile' in creds ? readKeyFile(creds.serviceAccountKeyFile) : creds.serviceAccountKey;
  const jwt = new JWT({ email: key.client_email, key: key.private_key, scopes: [SHEETS_SCOPE] });
  // Google accepts a self-signed JWT carrying the scope as the bearer token for its APIs; this saves
  // the token exchange and works the same against a local stand-in.
  jwt.useJWTAccessWithScope = true;
  return jwt;
}
