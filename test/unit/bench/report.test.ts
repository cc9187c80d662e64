import { describe, expect, it } from 'vitest';
import type { ScenarioResult } from '../../../bench/harness.js';
import { parseOptions } from '../../../bench/options.js';
import { formatReport, medianRatios, medianResults, ratios } from '../../../bench/report.js';
import type { RunReport } from '../../../bench/report.js';

const result = (scenario: string, rps: number): ScenarioResult => ({ scenario, rps, p50: 0, p99: 0, peakRssMb: null, cpuMsPerRequest: null, phase: null, extra: {} });
const round = (getBearer: number, reference: number) => [result('bare-fastify-sqlite', reference), result('get-bearer', getBearer)];
const readRatio = (list: ReturnType<typeof ratios>) => list.find((r) => r.name === 'get-bearer ÷ bare-fastify-sqlite');

describe('benchmark rounds (--repeat)', () => {
  const rounds = [round(30, 40), round(36, 40), round(20, 40), round(32, 40), round(38, 40)];

  it('judges a target on the median of the rounds’ ratios and keeps every round’s ratio', () => {
    const ratio = readRatio(medianRatios(rounds.map((r) => ratios(r, null))));
    expect(ratio?.rounds).toEqual([0.75, 0.9, 0.5, 0.8, 0.95]);
    expect(ratio?.value).toBe(0.8);
    expect(ratio?.met).toBe(true);
  });

  it('takes the lower middle of an even number of rounds, a ratio one round measured', () => {
    const ratio = readRatio(medianRatios(rounds.slice(0, 4).map((r) => ratios(r, null))));
    expect(ratio?.value).toBe(0.75);
    expect(ratio?.met).toBe(false);
  });

  it('shows each scenario’s median round by req/s, in the order the scenarios ran', () => {
    expect(medianResults(rounds).map((r) => [r.scenario, r.rps])).toEqual([
      ['bare-fastify-sqlite', 40],
      ['get-bearer', 32],
    ]);
  });

  it('leaves out rounds where a ratio could not be computed', () => {
    const ratio = readRatio(medianRatios([round(30, 40), [result('get-bearer', 35)]].map((r) => ratios(r, null))));
    expect(ratio?.rounds).toEqual([0.75, null]);
    expect(ratio?.value).toBe(0.75);
  });

  it('parses --contenders (100 by default) and --analyze (off by default)', () => {
    expect(parseOptions([], {})).toMatchObject({ contenders: 100, analyze: false });
    expect(parseOptions(['--contenders', '20', '--analyze'], {})).toMatchObject({ contenders: 20, analyze: true });
    expect(() => parseOptions(['--contenders', '0'], {})).toThrow(/--contenders must be a positive integer/);
  });

  it('parses --repeat as a positive whole number, 1 by default', () => {
    expect(parseOptions([], {}).repeat).toBe(1);
    expect(parseOptions(['--repeat', '5'], {}).repeat).toBe(5);
    expect(() => parseOptions(['--repeat', '0'], {})).toThrow(/--repeat must be a positive integer/);
    expect(() => parseOptions(['--repeat', '1.5'], {})).toThrow(/--repeat/);
  });

  it('shows the median ratio, not the quotient of two median rows, in the table of a repeated run', () => {
    // Median rows: get-bearer 30, reference 40, i.e. 0.75; the rounds' ratios 1.00, 0.50, 0.89.
    const uneven = [round(30, 30), round(20, 40), round(40, 45)];
    const medianRows = medianResults(uneven);
    const report: RunReport = {
      date: '2026-11-25T00:00:00.000Z',
      database: 'sqlite',
      service: 'test',
      loadGenerator: 'test',
      options: { duration: 1, warmup: 0, connections: 1, database: 'sqlite', workers: 2, rows: 1, profileDir: null, repeat: uneven.length, contenders: 100, analyze: false, scenarios: ['get-bearer'] },
      machine: { cpuModel: 'test', cores: 2, totalMemoryGb: 1, platform: 'linux', node: 'v20', openssl: '3', loadAverageAtStart: 0 },
      crypto: null,
      results: medianRows,
      rounds: uneven,
      ratios: medianRatios(uneven.map((r) => ratios(r, null))),
      clusterScaling: {},
    };
    const row = formatReport(report)
      .split('\n')
      .find((line) => line.startsWith('| get-bearer'));
    expect(row).toContain('0.89× bare-fastify-sqlite (median) (≥ 0.8 met)');
  });
});

describe('booking-core targets (docs/bookings.md "Speed")', () => {
  const timed = (scenario: string, rps: number, p99: number): ScenarioResult => ({ ...result(scenario, rps), p99 });
  const target = (list: ReturnType<typeof ratios>, name: string) => list.find((r) => r.name === name);

  it('judges the availability reads on their p99, below the target in ms, on both databases', () => {
    const run = [timed('availability-product', 900, 9.99), timed('availability-search', 300, 50)];
    for (const database of ['sqlite', 'postgres'] as const) {
      const list = ratios(run, null, database);
      expect(target(list, 'availability-product p99 ms')).toMatchObject({ value: 9.99, target: 10, kind: 'below', met: true });
      expect(target(list, 'availability-search p99 ms')).toMatchObject({ value: 50, target: 50, met: false });
    }
  });

  it('judges contended bookings/s on SQLite only, and still reports the PostgreSQL figure', () => {
    const run = [timed('book-contended', 420, 300)];
    expect(target(ratios(run, null, 'sqlite'), 'book-contended bookings/s')).toMatchObject({ value: 420, target: 500, kind: 'at-least', met: false });
    expect(target(ratios(run, null, 'postgres'), 'book-contended bookings/s')).toMatchObject({ value: 420, met: null });
  });

  it('takes the median p99 of the rounds', () => {
    const rounds = [8, 12, 9].map((p99) => ratios([timed('availability-product', 1, p99)], null));
    expect(target(medianRatios(rounds), 'availability-product p99 ms')).toMatchObject({ value: 9, rounds: [8, 12, 9], met: true });
  });

  it('counts the 409s book-contended provokes as designed, not as failed requests', () => {
    const contended: ScenarioResult = {
      ...timed('book-contended', 600, 200),
      phase: { seconds: 10, ok: 6000, non2xx: 550, errors: 0, timeouts: 0, rps: 600, p50: 100, p99: 200, mean: 100, bytesPerSecond: 0, statusCodes: { '201': 6000, '409': 550 }, exhausted: false },
      extra: { capacityRefusals: 550 },
    };
    const report: RunReport = {
      date: '2026-11-25T00:00:00.000Z',
      database: 'sqlite',
      service: 'test',
      loadGenerator: 'test',
      options: { duration: 10, warmup: 0, connections: 10, database: 'sqlite', workers: 2, rows: 1, profileDir: null, repeat: 1, contenders: 100, analyze: false, scenarios: ['book-contended'] },
      machine: { cpuModel: 'test', cores: 2, totalMemoryGb: 1, platform: 'linux', node: 'v20', openssl: '3', loadAverageAtStart: 0 },
      crypto: null,
      results: [contended],
      rounds: null,
      ratios: ratios([contended], null, 'sqlite'),
      clusterScaling: {},
    };
    const text = formatReport(report);
    const row = text.split('\n').find((line) => line.startsWith('| book-contended'));
    expect(row).toContain('target ≥ 500, judged on SQLite: met');
    expect(row).toContain('550 × 409 capacity_exceeded (by design) not counted');
    expect(row).not.toContain('failed requests');
    expect(text).toMatch(/book-contended bookings\/s\s+600\.00\s+\(target ≥ 500, judged on SQLite\)\s+met/);
  });
});

describe('the memory target', () => {
  const settled = (scenario: string, settledRssMb: number | null, peakRssMb: number): ScenarioResult => ({ ...result(scenario, 100), peakRssMb, settledRssMb });
  const memory = (list: ReturnType<typeof ratios>) => list.find((r) => r.name.startsWith('RSS MB after full GC'));

  it('is judged on the highest resident set after a full collection, not on the peak with garbage', () => {
    const target = memory(ratios([settled('list-filtered', 131.5, 226), settled('audit-export', 142.2, 240), settled('cluster-2w get-bearer', null, 300)], null, 'postgres'));
    expect(target).toMatchObject({ value: 142.2, target: 200, kind: 'below', met: true });
    expect(memory(ratios([settled('token-bearer', 201, 205)], null))?.met).toBe(false);
  });

  it('is not judged when no scenario measured it', () => {
    expect(memory(ratios([result('bare-fastify', 100)], null))).toMatchObject({ value: null, met: null });
  });
});

describe('observability cost targets (issues 25 and 27)', () => {
  const costed = (scenario: string, rps: number, cpuMsPerRequest: number): ScenarioResult => ({ ...result(scenario, rps), cpuMsPerRequest });
  const target = (list: ReturnType<typeof ratios>, name: string) => list.find((r) => r.name === name);

  it('takes the access log line as get-bearer’s CPU per request less get-bearer-warn’s, met up to 8 µs', () => {
    const at = (info: number) => ratios([costed('get-bearer', 9000, info), costed('get-bearer-warn', 9500, 0.041)], null);
    expect(target(at(0.049), 'access log line, CPU µs')).toMatchObject({ value: 8, target: 8, kind: 'at-most', met: true });
    expect(target(at(0.0491), 'access log line, CPU µs')).toMatchObject({ value: 8.1, met: false });
    expect(target(ratios([costed('get-bearer', 9000, 0.05)], null), 'access log line, CPU µs')?.value).toBeNull();
  });

  it('asks token issuance for twice node-oidc-provider’s rate and tracing for 0.87 of the untraced rate', () => {
    const list = ratios([result('oidc-provider', 600), result('token-bearer', 1190), result('get-bearer', 1000), result('get-bearer-traced', 870)], null);
    expect(target(list, 'token-bearer ÷ oidc-provider')).toMatchObject({ value: 1.98, target: 2, met: false });
    expect(target(list, 'get-bearer-traced ÷ get-bearer')).toMatchObject({ value: 0.87, target: 0.87, met: true });
  });
});
