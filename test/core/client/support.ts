import { CompanyDataClient, type CompanyDataClientOptions, type SchemaMismatch } from '../../../packages/company-data/src/index';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../../packages/company-data/src/sandbox';

/** Registry codes, VAT numbers and names of the fixtures table in docs/sandbox.md (seed 1). */
export const FX = {
  active: { code: '13545698', vat: 'EE102224658', name: 'Lõunaranna Tarkvara OÜ' },
  large_as: { code: '10022830', vat: 'EE101151683', name: 'Põhjakalda Energia AS' },
  status_liquidation: { code: '13922184', name: 'Haavalepiku Kaubandus OÜ' },
  status_bankrupt: { code: '12623091', name: 'Raudsillu Ehitus OÜ' },
  status_deleted: { code: '12273720', vat: 'EE101708599', name: 'Kuusetagu Logistika OÜ' },
  previous_names: { code: '13391137', name: 'Sõstrakalda Grupp OÜ' },
  vat_history: { code: '12007970', vat: 'EE102809358' },
  vat_ended: { code: '14370568', vat: 'EE100847516', name: 'Allikaoru Disain OÜ' },
  vat_group: { vat: 'EE100786208', members: ['11750537', '13175528', '10894033'] },
  contacts: { code: '14579081' },
  consumer_blacklist: { code: '14091288' },
  foreign_owner: { code: '14573171' },
  joint_ownership: { code: '15598380' },
  holding_top: { code: '11586925' },
  holding_middle: { code: '12499401' },
  holding_bottom: { code: '13652804' },
  beneficial_owners: { code: '14368838' },
  ended_relations: { code: '11619010' },
  annual_reports: { code: '13126719' },
  not_covered: { code: '16961003' },
  rule_in_default: { code: '13446766' },
  rule_capital_breach: { code: '12459057' },
  tax_debt: { code: '14453248' },
  tax_debt_stale: { code: '14089825' },
  tax_declarations: { code: '14609101' },
  risk_records: { code: '13795656' },
  assets: { code: '12976210' },
  many_rows: { code: '10055321' },
  emtak_2025: { code: '16472936' },
  legal_form_FIE: { code: '14599503', name: 'Tarmo Kivisalu FIE' },
  persons: {
    many_roles: { id: 1, name: 'Tõnis Haldurmets' },
    board_member: { id: 2, name: 'Kadri Vahtrasalu' },
    foreign_organisation: { id: 3, name: 'Nordvik Holding AB' },
  },
  unknown_code: '19999992',
  unknown_vat: 'EE109999999',
} as const;

export interface ClientRig {
  sb: Sandbox;
  client: CompanyDataClient;
  /** Every answer that did not match its response schema; tests expect none. */
  mismatches: SchemaMismatch[];
  /** Operation ids of every request the rig's clients sent. */
  operations: Set<string>;
  newClient(o?: Partial<CompanyDataClientOptions>): CompanyDataClient;
  /** A sandbox control call (/sandbox/...) with the API-plan key; returns data or throws with the error body. */
  control<T = any>(method: string, path: string, body?: unknown, key?: string): Promise<T>;
  close(): Promise<void>;
}

/**
 * One small sandbox per test file (3000 companies start in well under a second) and a client against it
 * over real HTTP. The server's rate limit is off unless asked for, so files do not wait on it; the
 * rate-limit tests turn it on.
 */
export async function startClientRig(opts: SandboxOptions = {}): Promise<ClientRig> {
  const sb = await startSandbox({ companies: 3000, rateLimit: false, settings: { detectionRate: 0 }, ...opts });
  const mismatches: SchemaMismatch[] = [];
  const operations = new Set<string>();
  const clients: CompanyDataClient[] = [];
  const newClient = (o: Partial<CompanyDataClientOptions> = {}) => {
    const c = new CompanyDataClient({
      baseUrl: sb.url,
      apiKey: sb.apiKey,
      lang: 'en',
      rateLimit: false,
      onSchemaMismatch: (m) => mismatches.push(m),
      onRequest: (i) => operations.add(i.operation),
      ...o,
    });
    clients.push(c);
    return c;
  };
  const client = newClient();
  return {
    sb,
    client,
    mismatches,
    operations,
    newClient,
    async control(method, path, body, key = sb.apiKey) {
      const res = await fetch(sb.url + path, {
        method,
        headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json = (await res.json()) as { success: boolean; data?: unknown; error?: unknown };
      if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
      return json.data as never;
    },
    async close() {
      for (const c of clients) await c.close();
      await sb.close();
    },
  };
}

export { waitFor } from '../../support/wait-for';
