import { spawn } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../../support/repo-root.js';

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly line?: number;
  readonly origin?: string;
  readonly err?: { readonly message: string; readonly stack: string };
}

const dir = mkdtempSync(join(tmpdir(), 'booking-log-exit-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the fixture with stdout in a file, as an operator redirects it; resolves with the exit code and the lines. */
async function run(end: string, lines: number): Promise<{ code: number | null; lines: Line[] }> {
  const file = join(dir, `${end}.log`);
  const out = openSync(file, 'w');
  try {
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/log-exit-fixture.ts'], {
      cwd: repoRoot,
      env: { ...process.env, END: end, LINES: String(lines), UV_THREADPOOL_SIZE: '2' },
      stdio: ['ignore', out, 'pipe'],
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    return {
      code,
      lines: readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((text) => JSON.parse(text) as Line),
    };
  } finally {
    closeSync(out);
  }
}

const numbered = (lines: readonly Line[]) => lines.filter((l) => l.msg === 'request completed').map((l) => l.line);
const upTo = (count: number) => Array.from({ length: count }, (_, i) => i);

describe('asynchronous log lines are not lost when the process ends', () => {
  it('on an uncaught exception: every line, in order, then the fatal line with the stack; exit 1', async () => {
    const { code, lines } = await run('throw', 2000);
    expect(code).toBe(1);
    expect(numbered(lines)).toEqual(upTo(2000));
    expect(lines.at(-1)).toMatchObject({ level: 60, msg: 'uncaught exception: exiting', origin: 'uncaughtException', err: { message: 'uncaught in the fixture' } });
    expect(lines.at(-1)?.err?.stack).toContain('log-exit-fixture.ts');
  }, 60_000);

  it('on an unhandled rejection: the same', async () => {
    const { code, lines } = await run('reject', 2000);
    expect(code).toBe(1);
    expect(numbered(lines)).toEqual(upTo(2000));
    expect(lines.at(-1)).toMatchObject({ level: 60, origin: 'unhandledRejection', err: { message: 'unhandled in the fixture' } });
  }, 60_000);

  it('on a graceful exit: every line, exit 0', async () => {
    const { code, lines } = await run('exit', 2000);
    expect(code).toBe(0);
    expect(numbered(lines)).toEqual(upTo(2000));
  }, 60_000);
});
