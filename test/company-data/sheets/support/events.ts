/**
 * Events as the service delivers them, for the events-to-sheet tests: a tax-debt change of one company
 * and a saved search's new matches.
 */

/** Change event `evt_<n>`: the tax debt of `code` (or the given details) changed, on the given lists. */
export function taxDebtChange(n: number, opts: { code?: string; lists?: object[]; details?: unknown } = {}) {
  return {
    id: `evt_${n}`,
    type: 'monitoring.change',
    created_at: '2025-01-02T07:00:00.000Z',
    data: {
      company: { registry_code: opts.code ?? '10137319', name: `Firm ${n} OÜ` },
      lists: opts.lists ?? [],
      category: 'tax',
      kind: 'tax_debt',
      tone: 'bad',
      details: opts.details ?? { old: 0, new: 1200 },
      detected_at: '2025-01-02T06:55:00.000Z',
    },
  };
}

/** Matches event `id` of search `search`: the companies `codes`, each named `N <code><suffix>`. */
export function searchMatches(id: string, codes: string[], opts: { search?: { id: string; name: string }; nameSuffix?: string } = {}) {
  return {
    id,
    type: 'search.matches',
    created_at: '2025-01-02T05:00:00.000Z',
    data: {
      search: opts.search ?? { id: 'srch_x1', name: 'New IT firms' },
      date: '2025-01-02',
      part: 1,
      parts: 1,
      total: codes.length,
      companies: codes.map((c) => ({
        registry_code: c,
        name: `N ${c}${opts.nameSuffix ?? ''}`,
        legal_form: 'OÜ',
        status: 'R',
        registered_on: '2024-12-30',
        address: 'Tallinn',
        activity_code: '62011',
        employees: null,
        revenue: null,
        tax_debt: null,
        rating: null,
      })),
    },
  };
}
