/** One sample line of the Prometheus text exposition format. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const sampleLine = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const labelPair = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"(?:,|$)/y;
const commentLine = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/;

function parseLabels(text: string, line: string): Record<string, string> {
  const labels: Record<string, string> = {};
  labelPair.lastIndex = 0;
  while (labelPair.lastIndex < text.length) {
    const match = labelPair.exec(text);
    if (!match?.[1]) throw new Error(`bad labels in: ${line}`);
    labels[match[1]] = (match[2] ?? '').replace(/\\(.)/g, (_m, c: string) => (c === 'n' ? '\n' : c));
  }
  return labels;
}

/**
 * A strict parser for the text format (version 0.0.4): every line is a HELP/TYPE comment
 * or a sample, every sample belongs to a family that declared its TYPE. Throws otherwise.
 */
export function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const comment = commentLine.exec(line);
    if (comment) {
      if (comment[1] === 'TYPE') types.set(comment[2] ?? '', comment[3] ?? '');
      continue;
    }
    const match = sampleLine.exec(line);
    if (!match?.[1] || match[3] === undefined) throw new Error(`not a Prometheus sample line: ${line}`);
    const name = match[1];
    const family = [...types.keys()].find((f) => name === f || (/^_(bucket|sum|count|total|created)$/.test(name.slice(f.length)) && name.startsWith(f)));
    if (!family) throw new Error(`sample ${name} without a TYPE line`);
    // Go's ParseFloat, which Prometheus uses, reads NaN in any case (prom-client writes "Nan").
    const raw = match[3];
    const value = /^nan$/i.test(raw) ? Number.NaN : Number(raw.replace(/^\+Inf$/, 'Infinity').replace(/^-Inf$/, '-Infinity'));
    if (Number.isNaN(value) && !/^nan$/i.test(raw)) throw new Error(`bad value in: ${line}`);
    samples.push({ name, labels: parseLabels(match[2] ?? '', line), value });
  }
  return { samples, types };
}

/** The value of the sample `name` whose labels include `labels`; 0 when there is none. */
export function valueOf(samples: readonly Sample[], name: string, labels: Record<string, string> = {}): number {
  const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0]?.value ?? 0;
}
