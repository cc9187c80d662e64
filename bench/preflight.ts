/**
 * One request through fetch before a load phase: a scenario that would answer errors
 * fails here with the service's own message instead of as a column of non-2xx counts.
 */
export async function preflight(url: string, init: RequestInit, expected = 200): Promise<Response> {
  const response = await fetch(url, init);
  if (response.status !== expected) {
    const text = await response.text();
    throw new Error(`preflight ${init.method ?? 'GET'} ${url}: expected ${expected}, got ${response.status}: ${text.slice(0, 500)}`);
  }
  return response;
}
