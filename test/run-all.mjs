// `npm test`: lint, the formatter check and the type check run beside vitest's lanes rather
// than before them.
// Each is one single-threaded process, and the lanes leave cores idle while they wait for
// the processes they start (npm, servers, Chromium, PostgreSQL), so the checks mostly fit
// into that idle time instead of adding their own; they run at a lower priority, so the
// tests get the CPU when both want it. Their output is printed after vitest's;
// any failing step fails the run. Arguments go to vitest (`npm test -- --sequence.shuffle`).
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/**
 * Runs one step. A quiet step (a static check) runs at a lower priority and its output is
 * kept for the end; vitest's goes straight to the terminal so its progress stays readable.
 * @param {string} name
 * @param {string} command
 * @param {string[]} args
 * @param {boolean} quiet
 * @returns {Promise<{ name: string, code: number, seconds: number, output: string }>}
 */
function step(name, command, args, quiet) {
  const started = Date.now();
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(command, args, { cwd: root, stdio: quiet ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    // Set before npm starts the checker, which inherits it.
    if (quiet && child.pid !== undefined) setPriority(child.pid, 10);
    /** @param {Buffer} chunk */
    const keep = (chunk) => (output += chunk.toString('utf8'));
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    const done = (/** @type {number} */ code) => resolve({ name, code, seconds: Math.round((Date.now() - started) / 1000), output });
    child.on('error', (error) => {
      output += `${error.message}\n`;
      done(1);
    });
    child.on('close', (code, signal) => done(code ?? (signal ? 1 : 0)));
  });
}

const results = await Promise.all([
  step('lint', npm, ['run', '--silent', 'lint'], true),
  step('typecheck', npm, ['run', '--silent', 'typecheck'], true),
  step('format', npm, ['run', '--silent', 'format:check'], true),
  step('vitest', process.execPath, [fileURLToPath(new URL('../node_modules/vitest/vitest.mjs', import.meta.url)), 'run', ...process.argv.slice(2)], false),
]);

for (const { name, code, output } of results) {
  if (output.trim() !== '') process.stdout.write(`\n── ${name} ──\n${output}`);
  if (code !== 0 && name !== 'vitest') process.stdout.write(`${name} failed (exit ${code})\n`);
}
process.stdout.write(`\n${results.map(({ name, code, seconds }) => `${name} ${code === 0 ? 'passed' : 'FAILED'} in ${seconds} s`).join(', ')}\n`);
process.exitCode = results.some(({ code }) => code !== 0) ? 1 : 0;
