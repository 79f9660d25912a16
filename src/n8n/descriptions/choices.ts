const SMALL_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'of', 'on', 'or', 'per', 'the', 'to']);

/** n8n writes option names in Title Case: "Annual reports" → "Annual Reports". */
export function titleCase(label: string): string {
  return label
    .split(' ')
    .map((w, i) => (i > 0 && SMALL_WORDS.has(w.toLowerCase()) ? w.toLowerCase() : w ? w[0]!.toUpperCase() + w.slice(1) : w))
    .join(' ');
}
