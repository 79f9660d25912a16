import { withRegistryCheckDigit } from '@company-data/core/validation';
import type { AppliedChange, CompanyFacts, CompanyPort, NewCompanyInput } from './company-port';
import { applyToFacts } from './apply';

/** A CompanyPort over plain facts: for tests of the write side without the generated dataset. */
export class MemoryCompanies implements CompanyPort {
  readonly byCode = new Map<string, CompanyFacts>();
  private next = 1_700_000;

  constructor(companies: CompanyFacts[] = []) {
    for (const c of companies) this.byCode.set(c.registry_code, c);
  }

  get(code: string) {
    return this.byCode.get(code);
  }

  all() {
    return this.byCode.values();
  }

  applyChange(change: AppliedChange): void {
    const c = this.byCode.get(change.registry_code);
    if (c) applyToFacts(c, change);
  }

  register(input: NewCompanyInput, onDate: string): CompanyFacts {
    let code = input.registry_code;
    while (!code || this.byCode.has(code)) code = withRegistryCheckDigit(String(this.next++));
    const c = newFacts(code, input, onDate, this.byCode.size);
    this.byCode.set(code, c);
    return c;
  }
}

/** Facts of a newly registered company: an osaühing with defaults for what the input leaves out. */
export function newFacts(code: string, input: NewCompanyInput, onDate: string, n: number): CompanyFacts {
  const county = input.county ?? 'Harju maakond';
  return {
    registry_code: code,
    name: input.name ?? `Uusettevõte ${n + 1} OÜ`,
    legal_form: input.legal_form ?? 'osaühing',
    legal_form_abbr: input.legal_form === undefined || input.legal_form === 'osaühing' ? 'OÜ' : input.legal_form,
    status: 'R',
    registered_on: input.registered_on ?? onDate,
    address: `${county}, Tallinn, Pärnu mnt ${(n % 150) + 1}, 10141`,
    county,
    activity_codes: [input.activity_code ?? '62011'],
    employees: input.employees ?? null,
    revenue: input.revenue ?? null,
    tax_debt: null,
    rating: null,
    score: null,
    board: [],
    share_capital: 2500,
    vat_number: null,
  };
}
