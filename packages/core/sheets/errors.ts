/**
 * Typed errors of the Sheets engine, in the style of the client's (../errors.ts): a machine code, the
 * setting at fault (`field`) and the rule it broke, what to do (`hint`), and Google's HTTP status and
 * reason when Google refused. Their texts name no door's words: a setting is a reference to its field,
 * and each door words the error with its own names (wordSheetsError): the CLI its flags, the n8n node
 * its parameters, the add-on its sidebar's labels. The error's own message uses the engine's option
 * names (the library's words).
 */

/** The settings an error of the engine can name: the engine's option names. */
export const sheetsFields = ['spreadsheet', 'sheet', 'column', 'fields', 'maxBilledQueries', 'eventsSheet'] as const;
export type SheetsField = (typeof sheetsFields)[number];

/** How a door names each setting (the CLI: "--column"; the n8n node: "Key Column"; the add-on: its label). */
export type SheetsFieldNames = Readonly<Record<SheetsField, string>>;

/** Text with references to settings, which each door words with its names. */
export type SheetsText = readonly (string | { readonly field: SheetsField })[];

/** A reference to a setting, made only by `setting`: nothing a user typed can pass for one. */
class SettingRef {
  constructor(readonly field: SheetsField) {}
}

/** A reference to a setting, for `say`. */
export const setting = (field: SheetsField): SettingRef => new SettingRef(field);

/**
 * Text naming settings: say`name the column with ${setting('column')}`. Other values go in as text, so a
 * header or title a user typed is never taken for a reference.
 */
export function say(strings: TemplateStringsArray, ...values: unknown[]): SheetsText {
  const out: (string | { field: SheetsField })[] = [];
  strings.forEach((s, i) => {
    out.push(s);
    if (i >= values.length) return;
    const v = values[i];
    out.push(v instanceof SettingRef ? { field: v.field } : String(v));
  });
  return out;
}

const textOf = (t: SheetsText, names: SheetsFieldNames): string => t.map((p) => (typeof p === 'string' ? p : names[p.field])).join('');

/** The engine's own names: its options' (enrichSheet's column, sheet, maxBilledQueries …). */
export const engineFieldNames: SheetsFieldNames = Object.fromEntries(sheetsFields.map((f) => [f, f])) as Record<SheetsField, string>;

export interface SheetsErrorInit {
  /** What went wrong, for programs: no_key_column, no_such_sheet, over_billing_cap, google_refused … */
  code: string;
  /** The setting to change, when one is at fault. */
  field?: SheetsField;
  /** What is wrong, read after the setting's name ("column: no header …"). */
  rule: SheetsText | string;
  /** What to do, in plain words. */
  hint?: SheetsText | string;
  /** Google's HTTP status, when Google refused. */
  status?: number;
  /** Google's reason (its error status: PERMISSION_DENIED, NOT_FOUND …), when it gave one. */
  reason?: string;
  /** A 403 of a protected cell, not of sharing. */
  protectedCell?: boolean;
  cause?: unknown;
}

const asText = (t: SheetsText | string | undefined): SheetsText => (t === undefined ? [] : typeof t === 'string' ? [t] : t);

/** An error of the Sheets engine or a refusal by Google Sheets, worded by each door with wordSheetsError. */
export class SheetsError extends Error {
  readonly code: string;
  readonly field?: SheetsField;
  readonly rule: SheetsText;
  readonly hint: SheetsText;
  readonly status?: number;
  readonly reason?: string;
  readonly protectedCell: boolean;

  constructor(init: SheetsErrorInit) {
    const rule = asText(init.rule);
    const hint = asText(init.hint);
    super(worded(init.field, rule, engineFieldNames), init.cause === undefined ? undefined : { cause: init.cause });
    this.name = new.target.name;
    this.code = init.code;
    if (init.field !== undefined) this.field = init.field;
    this.rule = rule;
    this.hint = hint;
    if (init.status !== undefined) this.status = init.status;
    if (init.reason !== undefined) this.reason = init.reason;
    this.protectedCell = init.protectedCell ?? false;
  }

  toJSON(): Record<string, unknown> {
    const { message, hint } = wordSheetsError(this, engineFieldNames);
    const out: Record<string, unknown> = { name: this.name, message, code: this.code, hint };
    for (const k of ['field', 'status', 'reason'] as const) if (this[k] !== undefined) out[k] = this[k];
    return out;
  }
}

function worded(field: SheetsField | undefined, rule: SheetsText, names: SheetsFieldNames): string {
  const text = textOf(rule, names);
  return field === undefined ? text : `${names[field]}: ${text}`;
}

/** A SheetsError in a door's words: the message (the setting's name, then the rule) and what to do. */
export interface WordedSheetsError {
  message: string;
  /** The rule alone, for a door that puts the setting's name its own way. */
  rule: string;
  hint: string;
}

/** Words a SheetsError with a door's names for the settings: the one thing each door needs to show it. */
export function wordSheetsError(err: SheetsError, names: SheetsFieldNames): WordedSheetsError {
  return { message: worded(err.field, err.rule, names), rule: textOf(err.rule, names), hint: textOf(err.hint, names) };
}
