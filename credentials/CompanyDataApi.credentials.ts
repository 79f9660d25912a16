import type { IAuthenticateGeneric, Icon, ICredentialTestRequest, ICredentialType, INodeProperties } from 'n8n-workflow';

export class CompanyDataApi implements ICredentialType {
  name = 'companyDataApi';

  displayName = 'Company Data API';

  icon: Icon = { light: 'file:companyDataApi.svg', dark: 'file:companyDataApi.dark.svg' };

  documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-company-data#credentials';

  properties: INodeProperties[] = [
    {
      displayName: 'API Key',
      name: 'apiKey',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      required: true,
      description: 'The key issued by the operator. It is shown once; a lost key is replaced, never recovered.',
    },
    {
      displayName: 'Base URL',
      name: 'baseUrl',
      type: 'string',
      default: 'http://127.0.0.1:4010',
      required: true,
      placeholder: 'https://api.example.com',
      description:
        'Address of the service, as given by the operator. The default is the local sandbox started with "company-data sandbox"; replace it with the production address.',
    },
    {
      displayName: 'Send Key As',
      name: 'authStyle',
      type: 'options',
      options: [
        { name: 'Authorization: Bearer Header', value: 'bearer' },
        { name: 'X-API-Key Header', value: 'xApiKey' },
      ],
      default: 'xApiKey',
      description: 'Which header carries the key. The service accepts both.',
    },
    {
      displayName: 'Webhook Signing Secret',
      name: 'webhookSigningSecret',
      type: 'string',
      typeOptions: { password: true },
      default: '',
      description:
        'Only needed when your account already has a webhook: the secret shown when it was created. The trigger node uses it to check that events really come from the service.',
    },
  ];

  // The header name itself depends on the chosen style, so no empty header is ever sent.
  authenticate: IAuthenticateGeneric = {
    type: 'generic',
    properties: {
      headers: {
        '={{$credentials.authStyle === "bearer" ? "Authorization" : "X-API-Key"}}':
          '={{$credentials.authStyle === "bearer" ? "Bearer " + $credentials.apiKey : $credentials.apiKey}}',
      },
    },
  };

  // GET /usage is cheap, authenticated and open to every plan.
  test: ICredentialTestRequest = {
    request: {
      baseURL: '={{$credentials.baseUrl.replace(/\\/+$/, "")}}',
      url: '/usage',
      method: 'GET',
    },
  };
}
