import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, importsOf } from '../../support/import-graph.js';
import type { ImportEdge } from '../../support/import-graph.js';

const root = join(import.meta.dirname, '../../..');

/**
 * The layers, bottom up (docs/architecture.md, "Layers"). A module may import its own
 * folder and any folder of a lower layer; never one of its own layer, never one above.
 * A unit is a folder directly under src/ (`root` is the files at src/ itself, the
 * composition root and the entry points), or cli/ and bench/.
 */
const layers: readonly (readonly string[])[] = [
  ['lib'],
  ['core'],
  ['config'],
  ['registry'],
  ['db'],
  ['http'],
  ['observability'],
  ['query'],
  ['derive'],
  ['actions'],
  ['data'],
  ['security'],
  ['edge'],
  ['services'],
  ['booking'],
  ['selling'],
  ['calendars'],
  ['export'],
  ['webhooks'],
  ['sign-in'],
  ['gdpr'],
  ['posture'],
  ['handlers'],
  ['routes'],
  ['container'],
  ['root'],
  ['cli'],
  ['bench'],
];

const rank = new Map(layers.flatMap((units, index) => units.map((unit) => [unit, index] as const)));

/** The unit of a path: `src/<folder>/…` → folder, `src/<file>` → `root`, `cli/…` → `cli`. */
function unitOf(path: string): string {
  const parts = path.split('/');
  if (parts[0] !== 'src') return parts[0] ?? path;
  return parts.length > 2 ? (parts[1] ?? path) : 'root';
}

/** The edges that import sideways or upwards, as `from -> to`. */
function violations(edges: readonly ImportEdge[]): string[] {
  const found = edges.filter((edge) => {
    const from = unitOf(edge.from);
    const to = unitOf(edge.to);
    if (from === to || !rank.has(to)) return false;
    return (rank.get(to) ?? 0) >= (rank.get(from) ?? 0);
  });
  return [...new Set(found.map((edge) => `${edge.from} -> ${edge.to}`))].sort();
}

const edges = importGraph(root, ['src', 'cli', 'bench']).filter((edge) => ['src', 'cli', 'bench'].includes(edge.to.split('/')[0] ?? ''));

describe('the layers: an import never points up or sideways, so no two folders import each other', () => {
  it('places every folder of src/ in exactly one layer, and every layer names folders that exist', () => {
    const units = new Set(edges.flatMap((edge) => [unitOf(edge.from), unitOf(edge.to)]));
    expect([...units].filter((unit) => !rank.has(unit))).toEqual([]);
    const listed = layers.flat();
    expect(new Set(listed).size).toBe(listed.length);
    expect(listed.filter((unit) => unit !== 'root' && !existsSync(join(root, ['cli', 'bench'].includes(unit) ? unit : `src/${unit}`)))).toEqual([]);
  });

  it('finds no import from a lower layer to a higher one, or between folders of one layer', () => {
    expect(edges.length).toBeGreaterThan(500);
    expect(violations(edges)).toEqual([]);
  });

  it('reports an upward import, type-only, re-exports and dynamic imports included, and lets a downward one pass', () => {
    const source = [
      "import type { Clock } from '../services/clock.js';",
      "export { actions } from '../actions/index.js';",
      "import { resources } from '../registry/index.js';",
      "const { Metrics } = await import('../observability/metrics.js');",
      "import { tokenPath } from '../http/api-paths.js';",
    ].join('\n');
    const fixture = importsOf('src/db/fixture.ts', source);
    expect(fixture.map((edge) => edge.to)).toEqual(['src/services/clock.ts', 'src/actions/index.ts', 'src/registry/index.ts', 'src/observability/metrics.ts', 'src/http/api-paths.ts']);
    expect(violations([...fixture, { from: 'src/routes/x.ts', to: 'src/security/y.ts' }])).toEqual([
      'src/db/fixture.ts -> src/actions/index.ts',
      'src/db/fixture.ts -> src/http/api-paths.ts',
      'src/db/fixture.ts -> src/observability/metrics.ts',
      'src/db/fixture.ts -> src/services/clock.ts',
    ]);
    expect(readFileSync(join(root, 'docs/architecture.md'), 'utf8')).toContain('test/unit/architecture/layers.test.ts');
  });
});
