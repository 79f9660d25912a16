import emtak2008Rows from '../../reference/emtak-2008.json';
import naceTitles from '../../reference/nace-titles.json';
import { fold } from './search';

export interface EmtakCode {
  code: string;
  version: 2008 | 2025;
  section: string;
  title_et: string;
  title_en: string;
  /** Both titles folded (case and diacritics), for word search: folded once, not per request. */
  folded: string;
}

const withFolded = (c: Omit<EmtakCode, 'folded'>): EmtakCode => ({ ...c, folded: fold(`${c.title_et} ${c.title_en}`) });

export const emtak2008: readonly EmtakCode[] = (
  emtak2008Rows as { code: string; title_et: string; title_en: string; section: string }[]
).map((r) => withFolded({ code: r.code, version: 2008, section: r.section, title_et: r.title_et, title_en: r.title_en }));

/**
 * Decision (docs/sandbox.md): the EMTAK 2025 edition is derived from the NACE Rev. 2.1 classes in
 * nace-titles.json (n21) as class + national digit 1 (6210 -> 62101). No Estonian titles are on
 * file for it, so every language gets the NACE English title.
 */
export const emtak2025: readonly EmtakCode[] = (() => {
  const n21 = (naceTitles as unknown as { n21: Record<string, string | [string, string]> }).n21;
  const out: EmtakCode[] = [];
  for (const [code, v] of Object.entries(n21)) {
    if (!/^\d{4}$/.test(code)) continue;
    const division = n21[code.slice(0, 2)];
    const section = Array.isArray(division) ? division[1] : '';
    const title = Array.isArray(v) ? v[0] : v;
    out.push(withFolded({ code: `${code}1`, version: 2025, section, title_et: title, title_en: title }));
  }
  return out;
})();

/** Both editions, the newer first (GET /emtak without version). */
export const emtakAll: readonly EmtakCode[] = [...emtak2025, ...emtak2008];

export const emtakByCode = new Map<string, EmtakCode>();
for (const c of emtak2008) emtakByCode.set(`2008:${c.code}`, c);
for (const c of emtak2025) emtakByCode.set(`2025:${c.code}`, c);

export function emtakTitle(code: string, version: number, lang: 'et' | 'en' | 'ru'): string {
  const c = emtakByCode.get(`${version}:${code}`);
  return c ? titleIn(c, lang) : code;
}

/** Estonian title for et; English otherwise (no Russian titles are on file). */
export function titleIn(c: EmtakCode, lang: 'et' | 'en' | 'ru'): string {
  return lang === 'et' ? c.title_et : c.title_en;
}
