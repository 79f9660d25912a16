import { monitoringCategories, type MonitoringCategory } from '@company-data/core/schemas/events';
import { hash32, mix, Rng } from '../dataset/prng';
import { ApiError } from '../http/errors';
import type { CompanyFacts, CompanyPort } from './company-port';
import { kindsByName, kindsOf, type Details, type Tone } from './kinds';

/** A change of a company found by detection (or created through /sandbox/changes). */
export interface Change {
  registry_code: string;
  name: string;
  category: MonitoringCategory;
  kind: string;
  tone: Tone;
  details: Details;
  /** Virtual ms; lists that got the company later do not report it. */
  occurred_at: number;
}

/**
 * Builds a change from the company's facts. Without a kind, the first kind of the category that applies
 * (in random order) is taken. `override` replaces generated details keys (e.g. { new: 'N' }).
 */
export function makeChange(
  c: CompanyFacts,
  category: MonitoringCategory,
  kind: string | undefined,
  rng: Rng,
  today: string,
  occurredAt: number,
  override?: Record<string, unknown>,
): Change | null {
  let candidates = kindsOf(category);
  if (kind !== undefined) {
    const spec = kindsByName.get(kind);
    if (!spec || spec.category !== category) {
      throw new ApiError(400, 'invalid_parameter', `kind must be one of: ${candidates.map((k) => k.kind).join(', ')}`, 'kind');
    }
    candidates = [spec];
  } else {
    candidates = [...candidates].sort(() => rng.next() - 0.5);
  }
  for (const spec of candidates) {
    const made = spec.make(c, rng, today);
    if (!made) continue;
    const details = { ...made, ...override } as Details;
    return {
      registry_code: c.registry_code,
      name: c.name,
      category,
      kind: spec.kind,
      tone: spec.tone(details),
      details,
      occurred_at: occurredAt,
    };
  }
  if (kind !== undefined)
    throw new ApiError(
      409,
      'change_not_possible',
      `kind ${kind} does not apply to ${c.registry_code} now (for example no tax debt to clear)`,
      'kind',
    );
  return null;
}

/**
 * Changes found by one scheduled run: each monitored company changes with probability `rate`, in a random
 * category. Seeded by the sandbox seed and the run time, so the same run always finds the same changes.
 */
export function randomChanges(
  codes: Iterable<string>,
  port: CompanyPort,
  seed: number,
  runAt: number,
  rate: number,
  today: string,
): Change[] {
  if (rate <= 0) return [];
  const out: Change[] = [];
  for (const code of [...codes].sort()) {
    const rng = new Rng(mix(mix(seed, Math.floor(runAt / 1000)), hash32(code)));
    if (!rng.chance(rate)) continue;
    const c = port.get(code);
    if (!c) continue;
    const change = makeChange(c, rng.pick(monitoringCategories), undefined, rng, today, runAt);
    if (change) out.push(change);
  }
  return out;
}
