import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { onlyJson, runCli } from '../support/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'booking-cli-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// Each run starts Node (about a second); the rows run four at a time.
const slow = 120_000;
const product = JSON.stringify({ name: 'P', address: 'A 1', city: 'C', zip_code: '1', total_items: 1 });

/** Runs `table`'s rows four at a time: all at once, a loaded machine pushes some past runCli's timeout. */
async function runAll<T>(table: readonly T[], run: (row: T) => ReturnType<typeof runCli>): Promise<Awaited<ReturnType<typeof runCli>>[]> {
  const results: Awaited<ReturnType<typeof runCli>>[] = [];
  for (let start = 0; start < table.length; start += 4) results.push(...(await Promise.all(table.slice(start, start + 4).map(run))));
  return results;
}

/** Every row gets a DATA_DIR of its own: runs that migrate a fresh database do not contend. */
let rows = 0;
function dataDir(): string {
  rows += 1;
  return join(dir, `data-${rows}`);
}

describe('CLI exit status: 2 for a usage error, 1 for a refused operation, the same for every command', () => {
  it(
    'prints {"error":"usage"} with the usage text on stderr and exits 2 for every usage error, naming the flag',
    async () => {
      const table: readonly (readonly [string[], string | undefined])[] = [
        [['tenant', 'explode'], undefined],
        [['tenant', 'create', '--name', 'x', '--colour', 'blue'], undefined],
        [['tenant', 'create', '--name'], undefined],
        // A missing required option: used to be 1 with validation_failed.
        [['tenant', 'create'], '--name'],
        [['client', 'add-key', '--public-key', join(dir, 'none.pem')], '--client'],
        [['client', 'create', '--name', 'x', '--capabilities', 'products:list', '--public-key', join(dir, 'none.pem')], '--tenant'],
        [['keygen'], '--out'],
        [['token', '--key', join(dir, 'none.key')], '--client'],
        [['token', '--client', 'c', '--key', join(dir, 'none.key'), '--dpop-key', join(dir, 'none.key')], '--dpop-key'],
        [['action', 'run'], '--action'],
        [['action', 'run', '--action', 'webhooks.deliveries'], '--id'],
        [['action', 'run', '--action', 'products.launch'], '--action'],
        [['action', 'run', '--action', 'tenants.create', '--body', '{not json'], '--body'],
        [['client', 'add-key', '--client', 'c', '--public-key', join(dir, 'none.pem'), '--overlap-days', 'soon'], '--overlap-days'],
        [['retention', 'run', '--all', '--dry-run'], '--dry-run'],
        [['backup'], '--to'],
        [['restore'], '--from'],
        [['move-to-postgres'], '--to'],
        [['move-to-postgres', '--to', 'http://example.com/db'], '--to'],
      ];
      const runs = await runAll(table, ([args]) => runCli(args, { DATA_DIR: dataDir() }));
      table.forEach(([args, flag], index) => {
        const run = runs[index];
        if (!run) throw new Error('missing run');
        const label = `${args.join(' ')}: ${run.stdout} ${run.stderr}`;
        expect(run.code, label).toBe(2);
        const body = onlyJson(run);
        expect(body.error, label).toBe('usage');
        expect(run.stderr, label).toContain('Usage:');
        if (flag !== undefined) {
          expect(String(body.detail), label).toContain(flag);
          expect(body.errors, label).toEqual([expect.objectContaining({ field: flag })]);
        }
      });
    },
    slow,
  );

  it(
    'exits 1 with the refusal code when a well-formed command is refused',
    async () => {
      const taken = join(dir, 'taken');
      writeFileSync(`${taken}.key`, '');
      const table: readonly (readonly [string[], Record<string, string>, string])[] = [
        [['keygen', '--out', taken], {}, 'validation_failed'],
        [['action', 'run', '--action', 'products.create', '--tenant', '0190a8b2-0000-7000-8000-000000000000', '--body', product], {}, 'validation_failed'],
        [['action', 'run', '--action', 'products.create', '--body', '{"name":1}'], {}, 'validation_failed'],
        [['restore', '--from', join(dir, 'no-such.tar')], {}, 'not_found'],
        [['backup', '--to', join(dir, 'x.tar')], { DATABASE_URL: 'postgres://u@127.0.0.1:1/db' }, 'not_sqlite'],
      ];
      const runs = await runAll(table, ([args, env]) => runCli(args, { DATA_DIR: dataDir(), ...env }));
      table.forEach(([args, , code], index) => {
        const run = runs[index];
        if (!run) throw new Error('missing run');
        const label = `${args.join(' ')}: ${run.stdout} ${run.stderr}`;
        expect(run.code, label).toBe(1);
        expect(onlyJson(run).error, label).toBe(code);
        expect(run.stderr, label).not.toContain('Usage:');
      });
    },
    slow,
  );

  it(
    'action run without --tenant for a tenant-owned record names the --tenant flag, not the HTTP header',
    async () => {
      const run = await runCli(['action', 'run', '--action', 'products.create', '--body', product], { DATA_DIR: dataDir() });
      expect(run.code, run.stderr).toBe(1);
      const body = onlyJson(run);
      expect(body).toMatchObject({ error: 'validation_failed', errors: [{ field: '--tenant' }] });
      expect(String(body.detail)).toContain('--tenant');
      expect(run.stdout).not.toContain('X-Tenant-Id');
    },
    slow,
  );

  it.skipIf(process.platform !== 'linux')(
    'a DATA_DIR that cannot be made is refused at once, exit 1, naming DATA_DIR (it used to hang)',
    async () => {
      const run = await runCli(['actions'], { DATA_DIR: '/proc/nope' });
      expect(run.code).toBe(1);
      expect(onlyJson(run)).toMatchObject({ error: 'failed', detail: expect.stringMatching(/^DATA_DIR: cannot create "\/proc\/nope"/) });
    },
    slow,
  );
});
