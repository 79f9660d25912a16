import { z } from 'zod/v4';

/**
 * The number of characters in `text` as JSON Schema's minLength and maxLength count them: Unicode code points.
 * String.length counts UTF-16 units, two for an emoji or any other character beyond U+FFFF.
 */
export function charCount(text: string): number {
  // A surrogate pair is one character; a lone surrogate counts as one too, as a string iterator reads it.
  return text.length - (text.match(/[\uD800-\uDBFF][\uDC00-\uDFFF]/g)?.length ?? 0);
}

export interface LengthRule {
  min?: number;
  max?: number;
}

interface CharLengthDef extends z.core.$ZodCheckDef, LengthRule {
  check: 'char_length';
}

/** What a too short or too long text is told, naming the rule in plain words. */
export const tooShortMessage = (min: number) => (min <= 1 ? 'must not be empty' : `must be at least ${min} characters`);
export const tooLongMessage = (max: number) => `must be at most ${max} characters`;

/*
 * A zod check like .min/.max (which count UTF-16 units), counting characters instead. It records its bounds where
 * zod's own length checks do (the schema's bag), so z.toJSONSchema still writes minLength and maxLength, also
 * after later checks such as .trim() or .regex().
 */
const $CharLength = z.core.$constructor<z.core.$ZodCheck<string>, CharLengthDef>('$CharLength', (inst, def) => {
  z.core.$ZodCheck.init(inst, def);
  inst._zod.onattach.push((schema) => {
    const bag = schema._zod.bag as { minimum?: number; maximum?: number };
    if (def.min !== undefined && def.min > (bag.minimum ?? Number.NEGATIVE_INFINITY)) bag.minimum = def.min;
    if (def.max !== undefined && def.max < (bag.maximum ?? Number.POSITIVE_INFINITY)) bag.maximum = def.max;
  });
  inst._zod.check = (payload) => {
    const input = payload.value;
    const n = charCount(input);
    if (def.min !== undefined && n < def.min)
      payload.issues.push({
        code: 'too_small',
        origin: 'string',
        minimum: def.min,
        inclusive: true,
        input,
        message: tooShortMessage(def.min),
      });
    if (def.max !== undefined && n > def.max)
      payload.issues.push({
        code: 'too_big',
        origin: 'string',
        maximum: def.max,
        inclusive: true,
        input,
        message: tooLongMessage(def.max),
      });
  };
});

/** The length rule on text, in characters: `z.string().check(charLength({ max: 200 }))`. Every text limit uses it. */
export function charLength(rule: LengthRule): z.core.$ZodCheck<string> {
  return new $CharLength({ check: 'char_length', ...rule });
}

/** Text of `min` to `max` characters. */
export const text = (rule: LengthRule) => z.string().check(charLength(rule));
