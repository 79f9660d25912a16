/**
 * JSON.parse that reports failure as a value: the callers (response parsing, webhook verification)
 * each turn "not JSON" into their own typed error, and keep the try around JSON.parse alone.
 */
export function parseJson(text: string): { value: unknown } | undefined {
  try {
    return { value: JSON.parse(text) as unknown };
  } catch {
    return undefined;
  }
}

/** A JSON object: not null, not an array (what `typeof v === 'object'` alone lets through). */
export const isJsonObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A section read from an answer: the object itself, else an empty one (a missing or odd section reads as nothing). */
export const objectOrEmpty = (v: unknown): Record<string, unknown> => (isJsonObject(v) ? v : {});

/** The objects of a list (anything else in it left out); anything but a list reads as none. */
export const objectsOf = (v: unknown): Record<string, unknown>[] => (Array.isArray(v) ? v.filter(isJsonObject) : []);
