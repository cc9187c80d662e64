import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { dialects, freshPostgresUrl } from '../../support/databases.js';
import { freePort } from '../../support/free-port.js';
import { clientKeyPair, signAssertion } from '../../support/keys.js';
import { onlyJson, runCli } from '../../support/run-cli.js';
import { logLines, startServer, until } from '../../support/server-process.js';
import type { ServerProcess } from '../../support/server-process.js';

const form = 'application/x-www-form-urlencoded';

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: string;
}

/** A request whose body the test sends when it chooses: in flight until then. */
interface Held {
  readonly request: ClientRequest;
  readonly body: string;
  readonly answer: Promise<Answer>;
}

function send(agent: Agent, origin: string, method: string, path: string, headers: Record<string, string>, body?: string): { request: ClientRequest; answer: Promise<Answer> } {
  const length = body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) };
  const req = request(`${origin}${path}`, { method, agent, headers: { ...headers, ...length } });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (res: IncomingMessage) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body: text }));
    });
    req.on('error', reject);
  });
  // Handled here so an early test failure leaves no unhandled rejection; awaiting still throws.
  answer.catch(() => undefined);
  return { request: req, answer };
}

function hold(agent: Agent, origin: string, path: string, headers: Record<string, string>, body: string): Held {
  const sent = send(agent, origin, 'POST', path, headers, body);
  sent.request.write(body.slice(0, Math.floor(body.length / 2)));
  return { ...sent, body };
}

const product = { name: 'Courtyard room', description: 'Quiet', address: 'Musterstraße 1', city: 'Berlin', zip_code: '10115', country: 'DE', total_items: 4 };

describe.each(dialects)('SIGTERM under keep-alive load on %s', (dialect) => {
  let dir: string | undefined;
  let server: ServerProcess | undefined;
  afterEach(async () => {
    if (server && server.child.exitCode === null) server.child.kill('SIGKILL');
    await server?.exited;
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('answers every request in flight, closes their connections and exits 0 before the grace period ends', async () => {
    dir = mkdtempSync(join(tmpdir(), 'booking-shutdown-'));
    const storage: Record<string, string> = { DATA_DIR: join(dir, 'data'), ...(dialect === 'postgres' ? { DATABASE_URL: await freshPostgresUrl() } : {}) };
    const key = clientKeyPair();
    writeFileSync(join(dir, 'client.pub'), key.publicPem);
    const tenant = onlyJson(await runCli(['tenant', 'create', '--name', 'Acme', '--level', 'partner'], storage));
    const client = onlyJson(
      await runCli(['client', 'create', '--name', 'loader', '--tenant', String(tenant._id), '--capabilities', 'products:list products:create', '--public-key', join(dir, 'client.pub')], storage),
    );
    const clientId = String(client.client_id);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    // The default grace (10 s). That the drain, not the timer, ended the shutdown is read
    // from the log ("shutdown complete", no "grace period over"), not from a stopwatch.
    server = startServer(port, { ...storage, PUBLIC_URL: origin, SHUTDOWN_GRACE_MS: '10000', LOG_LEVEL: 'debug', RATE_LIMIT_ENABLED: 'false' });
    const running = server;
    await running.waitReady();

    const tokenBody = async () =>
      new URLSearchParams({
        grant_type: 'client_credentials',
        client_id: clientId,
        client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:jwt-bearer',
        client_assertion: await signAssertion(key, clientId, `${origin}/v1/auth/token`, { kid: String(client.kid) }),
      }).toString();
    const first = await fetch(`${origin}/v1/auth/token`, { method: 'POST', headers: { 'content-type': form }, body: await tokenBody() });
    const bearer = { authorization: `Bearer ${((await first.json()) as { access_token: string }).access_token}` };

    // Load: clients reusing keep-alive connections for token requests, lists and creates.
    const loadAgent = new Agent({ keepAlive: true, maxSockets: 6 });
    let signalled = false;
    const answers: Answer[] = [];
    const worker = async (index: number) => {
      for (let n = index; !signalled; n++) {
        const body = n % 3 === 0 ? await tokenBody() : n % 3 === 2 ? JSON.stringify(product) : undefined;
        const sent =
          n % 3 === 0
            ? send(loadAgent, origin, 'POST', '/v1/auth/token', { 'content-type': form }, body)
            : n % 3 === 1
              ? send(loadAgent, origin, 'GET', '/v1/products/?per_page=5', bearer)
              : send(loadAgent, origin, 'POST', '/v1/products/', { ...bearer, 'content-type': 'application/json' }, body);
        sent.request.end(body);
        // After the signal a request may meet a connection the server has just closed.
        const answer = await sent.answer.catch((error: unknown) => (signalled ? undefined : Promise.reject(error)));
        if (answer) answers.push(answer);
      }
    };
    const workers = Array.from({ length: 6 }, (_, index) => worker(index));
    await until(() => answers.length >= 30, 'some load to be answered');

    // Requests certainly in flight when the signal comes: their bodies are still arriving.
    const heldAgent = new Agent({ keepAlive: true });
    const held = [
      hold(heldAgent, origin, '/v1/auth/token?held=1', { 'content-type': form }, await tokenBody()),
      hold(heldAgent, origin, '/v1/auth/token?held=2', { 'content-type': form }, await tokenBody()),
      // A create takes no query parameters: the held ones are told apart from the load by the path without its slash.
      hold(heldAgent, origin, '/v1/products', { ...bearer, 'content-type': 'application/json' }, JSON.stringify(product)),
      hold(heldAgent, origin, '/v1/products', { ...bearer, 'content-type': 'application/json' }, JSON.stringify(product)),
    ];
    const isHeld = (url: string | undefined) => url !== undefined && (url.includes('held=') || url === '/v1/products');
    const seen = () => logLines(running.stdout()).filter((line) => line.msg === 'request received' && isHeld(line.req?.url)).length;
    await until(() => seen() === held.length, 'the server to see the held requests');

    running.child.kill('SIGTERM');
    signalled = true;
    await until(() => running.stdout().includes('shutting down'), 'the shutdown to begin');
    for (const h of held) h.request.end(h.body.slice(Math.floor(h.body.length / 2)));
    const heldAnswers = await Promise.all(held.map((h) => h.answer));
    await Promise.all(workers);
    const code = await running.exited;
    loadAgent.destroy();
    heldAgent.destroy();

    expect(code, running.stdout().slice(-2000)).toBe(0);
    expect(heldAnswers.map((a) => a.status)).toEqual([200, 200, 201, 201]);
    expect(JSON.parse(heldAnswers[0]?.body ?? '{}')).toMatchObject({ access_token: expect.any(String) });
    // The client learns not to reuse a connection the server is about to close.
    expect(heldAnswers.map((a) => a.connection)).toEqual(['close', 'close', 'close', 'close']);
    // Load answered, through the hand-off and the close alike: served, never refused with 503.
    expect(answers.filter((a) => ![200, 201].includes(a.status)).map((a) => `${a.status} ${a.body}`)).toEqual([]);
    // Every request the server started, it finished.
    const lines = logLines(running.stdout());
    const received = lines.filter((line) => line.msg === 'request received').map((line) => line.reqId);
    const completed = new Set(lines.filter((line) => line.msg === 'request completed').map((line) => line.reqId));
    expect(received.filter((id) => !completed.has(id))).toEqual([]);
    expect(lines.map((line) => line.msg)).toContain('shutdown complete');
    expect(lines.map((line) => line.msg)).not.toContain('grace period over; exiting with requests still open');
  }, 60_000);
});
