import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dialects } from '../../support/databases.js';
import { createHarness } from '../../support/harness.js';
import type { Harness } from '../../support/harness.js';
import { expectProblem } from '../../support/problem.js';

// An IP literal the harness allows, so no answer depends on DNS.
const base = 'http://127.0.0.1:9/in';

/**
 * The URL parser drops tab, CR and LF (and trims other control characters), so such a URL
 * used to pass the check and be stored as sent (audit finding 6): what was shown and
 * exported was not what would be called. Every control character is refused instead, and so
 * are spaces, line separators and invisible format characters, which make a URL read as another.
 */
const named: Readonly<Record<string, string>> = {
  'CR LF and a header': `${base}\r\nX-Injected: 1`,
  'a trailing LF': `${base}\n`,
  'a tab in the path': 'http://127.0.0.1:9/i\tn',
  'a leading ESC sequence': `\u001b[31m${base}`,
  DEL: `${base}\u007f`,
  'a C1 control (NEL)': `${base}\u0085`,
  'a trailing SOH': `${base}\u0001`,
  'a space in the path': 'http://127.0.0.1:9/i n',
  'a trailing space': `${base} `,
  'a line separator (U+2028)': `${base}\u2028`,
  'a no-break space': `${base}\u00a0x`,
  'a right-to-left override (U+202E)': `${base}\u202egpj.exe`,
  'a zero-width space': `http://127.0.0.1:9/\u200bin`,
};
const tainted = Object.values(named);

describe.each(dialects)('control characters and spaces in a webhook url on %s', (dialect) => {
  let h: Harness;
  let token: string;

  beforeAll(async () => {
    h = await createHarness(dialect, { env: { WEBHOOK_ALLOW_HTTP: 'true', WEBHOOK_ALLOWED_NETWORKS: '127.0.0.1/32' } });
    token = await h.bearer(await h.tenant('Hooks'), ['webhooks:create', 'webhooks:read', 'webhooks:list', 'webhooks:update']);
  });
  afterAll(async () => {
    await h.close();
  });

  const stored = async () => (await h.database.db.selectFrom('webhooks').select('url').execute()).map((row) => row.url);

  it.each(Object.entries(named))('a create with %s is 400 validation_failed naming url, and nothing is stored', async (_name, url) => {
    const before = await stored();
    const answer = await h.request({ method: 'POST', url: '/v1/webhooks/', token, body: { url, events: ['ping'] } });
    const problem = expectProblem(answer, 400, 'validation_failed');
    expect(problem.errors).toEqual([{ field: 'url', message: expect.stringContaining('control characters') }]);
    expect(await stored()).toEqual(before);
  });

  it('an update to such a url is refused likewise and the stored url stays; a clean url still passes', async () => {
    const created = await h.request({ method: 'POST', url: '/v1/webhooks/', token, body: { url: base, events: ['ping'] } });
    expect(created.statusCode, created.body).toBe(201);
    const id = String(created.json()._id);
    const etag = String(created.headers.etag);
    for (const url of tainted) {
      const answer = await h.request({ method: 'PATCH', url: `/v1/webhooks/${id}`, token, body: { url }, headers: { 'if-match': etag } });
      expect(expectProblem(answer, 400, 'validation_failed').errors, JSON.stringify(url)).toEqual([{ field: 'url', message: expect.stringContaining('control characters') }]);
    }
    const read = await h.request({ method: 'GET', url: `/v1/webhooks/${id}`, token });
    expect(read.json().url).toBe(base);
    expect(read.headers.etag).toBe(etag);
    const moved = await h.request({ method: 'PATCH', url: `/v1/webhooks/${id}`, token, body: { url: 'http://127.0.0.1:9/moved?a=b%0D%0A' }, headers: { 'if-match': etag } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().url).toBe('http://127.0.0.1:9/moved?a=b%0D%0A');
  });
});
