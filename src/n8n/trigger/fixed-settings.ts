import { isJsonObject } from '@company-data/core/json';

/** n8n saves an expression as a string starting with '='; any other value is fixed. */
export function hasExpression(value: unknown): boolean {
  if (typeof value === 'string') return value.startsWith('=');
  if (Array.isArray(value)) return value.some(hasExpression);
  return isJsonObject(value) && Object.values(value).some(hasExpression);
}

interface ParameterSource {
  getNodeParameter(name: string, fallback?: unknown, options?: { rawExpressions?: boolean }): unknown;
}

/**
 * A getter of the node's settings that reads each as saved (getNodeParameter's rawExpressions: no trip
 * through n8n's expression engine, which in n8n 2.x may need an isolated sandbox) and evaluates only
 * the settings that hold an expression, as n8n would.
 */
export function fixedSettings(ctx: ParameterSource): (name: string, fallback: unknown) => unknown {
  return (name, fallback) => {
    const raw = ctx.getNodeParameter(name, fallback, { rawExpressions: true });
    return hasExpression(raw) ? ctx.getNodeParameter(name, fallback) : raw;
  };
}
