import type { AppliedChange, CompanyFacts, StatusCode } from './company-port';

/** How each kind changes the flat facts (the dataset adapter applies the same to its own model). */
export function applyToFacts(c: CompanyFacts, change: AppliedChange): void {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- change details are free-form per kind
  const d = change.details as { old: any; new: any };
  switch (change.kind) {
    case 'name_changed':
      c.name = String(d.new);
      break;
    case 'address_changed':
      c.address = String(d.new);
      break;
    case 'status_changed':
      c.status = d.new as StatusCode;
      break;
    case 'activity_changed':
      c.activity_codes = [String(d.new), ...c.activity_codes.filter((a) => a !== d.new)];
      break;
    case 'capital_changed':
      c.share_capital = Number(d.new);
      break;
    case 'board_member_added':
      c.board.push(d.new.name);
      break;
    case 'board_member_removed':
      c.board = c.board.filter((n) => n !== d.old.name);
      break;
    case 'tax_debt':
    case 'tax_debt_cleared':
      c.tax_debt = Number(d.new) || null;
      break;
    case 'vat_deregistered':
      c.vat_number = null;
      break;
    case 'rating_changed':
      c.rating = d.new ?? null;
      c.score = (change.details.new_score as number | undefined) ?? c.score;
      break;
  }
}
