/**
 * The first `count` registry codes of the sandbox's company list, read the plain way (GET /companies,
 * up to 100 a page), not through the code under test.
 */
export async function listedCodes(sb: { url: string; apiKey: string }, count: number): Promise<string[]> {
  const codes: string[] = [];
  const limit = Math.min(count, 100);
  for (let page = 1; codes.length < count; page++) {
    const res = await fetch(`${sb.url}/companies?limit=${limit}&page=${page}`, { headers: { 'X-API-Key': sb.apiKey } });
    const data = ((await res.json()) as { data: { registry_code: string }[] }).data;
    codes.push(...data.map((c) => c.registry_code));
    if (data.length < limit) break;
  }
  return codes.slice(0, count);
}
