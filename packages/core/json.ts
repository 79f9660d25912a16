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
