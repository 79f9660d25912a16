/**
 * Webhook registration for the trigger's activation and deactivation, kept apart from n8n so it can be
 * tested against the sandbox. The account has ONE webhook address and the signing secret is shown once,
 * at creation; these rules decide when activation may change the address and which secret verifies.
 */
import { CompanyDataError } from '@company-data/core/errors';

export interface WebhookConfigLike {
  url: string | null;
  enabled: boolean;
  signing_secret?: string;
}

/** The two webhook operations the lifecycle needs (GET /webhook is a decided operation). */
export interface WebhookApi {
  /** Current configuration; url null when the webhook was never created. */
  get(): Promise<WebhookConfigLike>;
  set(url: string, enabled: boolean): Promise<WebhookConfigLike>;
}

/** What the node keeps in its static data (set in create(), which n8n saves). */
export interface HookState {
  signingSecret?: string;
  webhookUrl?: string;
  /** Address the account's webhook pointed to before this node took it over. */
  previousUrl?: string;
}

export interface LifecycleOptions {
  /** The credential's optional "Webhook Signing Secret". */
  credentialSecret?: string;
  /** The node option "Take Over Existing Webhook". */
  takeOver: boolean;
}

/**
 * Activation refused until the user changes something (an option or the credential). One of the
 * client's error family, so src/n8n/errors.ts maps it with the rest; nothing was sent, so no status.
 */
export class WebhookSetupError extends CompanyDataError {
  constructor(message: string, hint: string) {
    super(message, { code: 'webhook_setup', hint });
  }
}

/** Secrets that may have signed a delivery: the one kept at creation and the credential's. */
export function knownSecrets(state: HookState, credentialSecret?: string): string[] {
  return [...new Set([state.signingSecret, credentialSecret?.trim()].filter((s): s is string => typeof s === 'string' && s !== ''))];
}

export async function checkExists(
  api: WebhookApi,
  ourUrl: string,
  state: HookState,
  opts: Pick<LifecycleOptions, 'credentialSecret'>,
): Promise<boolean> {
  const cfg = await api.get();
  return cfg.url === ourUrl && cfg.enabled && knownSecrets(state, opts.credentialSecret).length > 0;
}

export interface CreateResult {
  /** Set when the account's webhook pointed elsewhere and was taken over. */
  tookOverFrom?: string;
  secretSource: 'created' | 'kept' | 'credential';
}

export async function create(api: WebhookApi, ourUrl: string, state: HookState, opts: LifecycleOptions): Promise<CreateResult> {
  const cfg = await api.get();
  const exists = cfg.url !== null && cfg.url !== '';
  const elsewhere = exists && cfg.url !== ourUrl;
  const secrets = knownSecrets(state, opts.credentialSecret);

  // Check everything before changing anything, so a refused activation leaves the account as it was.
  if (elsewhere && cfg.enabled && !opts.takeOver) {
    throw new WebhookSetupError(
      `The account's webhook already sends events to another address (${cfg.url}); an account has one webhook address`,
      'Turn on "Take Over Existing Webhook" to send the events here instead (the other address then gets none), or use the Company Data Poll Trigger',
    );
  }
  if (exists && secrets.length === 0) {
    throw new WebhookSetupError(
      'The account already has a webhook, and its signing secret is shown only once, when it is created',
      'Enter the signing secret in the credential\'s "Webhook Signing Secret" field, then activate again',
    );
  }

  const res = await api.set(ourUrl, true);
  let secretSource: CreateResult['secretSource'];
  if (typeof res.signing_secret === 'string' && res.signing_secret !== '') {
    state.signingSecret = res.signing_secret;
    secretSource = 'created';
  } else if (secrets.length > 0) {
    secretSource = state.signingSecret ? 'kept' : 'credential';
  } else {
    throw new WebhookSetupError(
      'The service did not return a signing secret for the webhook, so deliveries cannot be verified',
      'Enter the signing secret in the credential\'s "Webhook Signing Secret" field, then activate again',
    );
  }
  state.webhookUrl = ourUrl;
  if (elsewhere) state.previousUrl = cfg.url!;
  else delete state.previousUrl;
  return { tookOverFrom: elsewhere ? cfg.url! : undefined, secretSource };
}

/**
 * Deactivation: turn sending off only while the webhook still points here, so a workflow that took
 * the address over keeps receiving. The secret stays in the state: the service will not show it again.
 */
export async function remove(api: WebhookApi, ourUrl: string, state: HookState): Promise<{ disabled: boolean }> {
  const cfg = await api.get();
  delete state.webhookUrl;
  if (cfg.url !== ourUrl || !cfg.enabled) return { disabled: false };
  await api.set(ourUrl, false);
  return { disabled: true };
}
