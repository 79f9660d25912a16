import type { Icon, ICredentialType, INodeProperties } from 'n8n-workflow';

/** Only what the node needs: reading and writing the spreadsheets the user can open, nothing in Drive. */
const SCOPE = 'https://www.googleapis.com/auth/spreadsheets';

/**
 * A person's Google account through the user's own OAuth client. n8n runs the consent, keeps the refresh
 * token (offline access) and renews the access token on a 401; its Test checks that a token was granted.
 */
export class CompanyDataGoogleSheetsOAuth2Api implements ICredentialType {
  name = 'companyDataGoogleSheetsOAuth2Api';

  extends = ['oAuth2Api'];

  displayName = 'Company Data: Google Sheets OAuth2 API';

  icon: Icon = { light: 'file:googleSheets.svg', dark: 'file:googleSheets.dark.svg' };

  documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-company-data#google-sheets-credentials';

  properties: INodeProperties[] = [
    { displayName: 'Grant Type', name: 'grantType', type: 'hidden', default: 'authorizationCode' },
    { displayName: 'Authorization URL', name: 'authUrl', type: 'hidden', default: 'https://accounts.google.com/o/oauth2/v2/auth' },
    { displayName: 'Access Token URL', name: 'accessTokenUrl', type: 'hidden', default: 'https://oauth2.googleapis.com/token' },
    { displayName: 'Scope', name: 'scope', type: 'hidden', default: SCOPE },
    // Without offline access and a fresh consent Google gives no refresh token, and the node would stop after an hour.
    {
      displayName: 'Auth URI Query Parameters',
      name: 'authQueryParameters',
      type: 'hidden',
      default: 'access_type=offline&prompt=consent',
    },
    { displayName: 'Authentication', name: 'authentication', type: 'hidden', default: 'body' },
    {
      displayName:
        'Use your own OAuth client (Google Cloud console → APIs & Services → Credentials → Create OAuth client ID, type Web application, with the OAuth Redirect URL above as an authorized redirect URI) and enable the Google Sheets API in its project.',
      name: 'notice',
      type: 'notice',
      default: '',
    },
  ];
}
