import type { Readiness } from './readiness.js';

/** What the status page shows; nothing else (no URLs, keys or configuration) reaches it. */
export interface StatusView {
  readonly readiness: Readiness;
  readonly shuttingDown: boolean;
  /** `sqlite` or `postgres`. */
  readonly storage: string;
  readonly version: string;
  /** Milliseconds since the epoch. */
  readonly startedAt: number;
  readonly now: number;
}

/** The page's CSP: inline styles only, nothing loaded, not frameable. */
export const statusPageCsp = "default-src 'none'; style-src 'unsafe-inline'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

type Tone = 'ok' | 'warn' | 'bad';

const storageNames: Readonly<Record<string, string>> = { sqlite: 'SQLite', postgres: 'PostgreSQL' };

const css = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--text:#1c2330;--muted:#5b6575;--line:#e3e6eb;--ok:#1a7f37;--warn:#9a6700;--bad:#cf222e}
@media (prefers-color-scheme:dark){:root{--bg:#0d1117;--card:#161b22;--text:#e6edf3;--muted:#9aa4b2;--line:#30363d;--ok:#3fb950;--warn:#d29922;--bad:#f85149}}
*{box-sizing:border-box}
body{margin:0;background:var(--bg);color:var(--text);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif}
main{max-width:40rem;margin:0 auto;padding:1.5rem 1rem 2rem}
h1{font-size:1.4rem;margin:0 0 .75rem}
h2{font-size:.8rem;text-transform:uppercase;letter-spacing:.06em;color:var(--muted);margin:1.5rem 0 .5rem}
.banner{display:flex;align-items:center;gap:.6rem;padding:1rem;border-radius:.6rem;color:#fff;font-weight:600;font-size:1.1rem}
.banner.ok{background:var(--ok)}.banner.warn{background:var(--warn)}.banner.bad{background:var(--bad)}
.card{background:var(--card);border:1px solid var(--line);border-radius:.6rem;margin:0;padding:0;list-style:none}
.row{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.25rem 1rem;padding:.75rem 1rem;border-top:1px solid var(--line)}
.row:first-child{border-top:0}
.row dt,.row .name{font-weight:500}
.row dd{margin:0;color:var(--muted);overflow-wrap:anywhere}
.state{font-weight:600}.state.ok{color:var(--ok)}.state.warn{color:var(--warn)}.state.bad{color:var(--bad)}
.dot{width:.7rem;height:.7rem;border-radius:50%;background:currentColor;display:inline-block;flex:none}
footer{margin-top:1.5rem;color:var(--muted);font-size:.85rem}
code{font-size:.85em}
`;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** "3 d 4 h", "2 h 5 min", "42 s": coarse enough to read at a glance. */
export function formatUptime(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  const [d, h, m] = [Math.floor(s / 86_400), Math.floor((s % 86_400) / 3600), Math.floor((s % 3600) / 60)];
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  return m > 0 ? `${m} min ${s % 60} s` : `${s} s`;
}

function componentRow(name: string, tone: Tone, text: string): string {
  return `<li class="row"><span class="name">${escapeHtml(name)}</span><span class="state ${tone}">${escapeHtml(text)}</span></li>`;
}

function detailRow(name: string, value: string): string {
  return `<div class="row"><dt>${escapeHtml(name)}</dt><dd>${value}</dd></div>`;
}

/** The database component from the same checks `/ready` uses. */
function databaseState(readiness: Readiness): [Tone, string] {
  if (readiness.checks['database:connection']?.[0]?.status !== 'pass') return ['bad', 'Unreachable'];
  if (readiness.checks['database:migrations']?.[0]?.status !== 'pass') return ['warn', 'Migrations pending'];
  return ['ok', 'Operational'];
}

/** The whole status page: one self-contained HTML document (inline CSS, no scripts). */
export function renderStatusPage(view: StatusView): string {
  const [dbTone, dbText] = databaseState(view.readiness);
  const [serviceTone, serviceText]: [Tone, string] = view.shuttingDown ? ['warn', 'Shutting down'] : ['ok', 'Operational'];
  const [tone, headline]: [Tone, string] = view.readiness.ready ? ['ok', 'All systems operational'] : view.shuttingDown ? ['warn', 'Shutting down'] : [dbTone, 'Service degraded'];
  const checkedAt = new Date(view.now).toISOString();
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>Booking service status</title>
<style>${css}</style>
</head>
<body>
<main>
<h1>Booking service status</h1>
<p class="banner ${tone}" role="status"><span class="dot"></span>${escapeHtml(headline)}</p>
<h2>Components</h2>
<ul class="card">
${componentRow('API service', serviceTone, serviceText)}
${componentRow('Database', dbTone, dbText)}
</ul>
<h2>Details</h2>
<dl class="card">
${detailRow('Storage', escapeHtml(storageNames[view.storage] ?? view.storage))}
${detailRow('Version', escapeHtml(view.version))}
${detailRow('Uptime', escapeHtml(formatUptime(view.now - view.startedAt)))}
${detailRow('Checked at', `<time datetime="${checkedAt}">${escapeHtml(checkedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC'))}</time>`)}
</dl>
<footer>Machine-readable: <code>/health</code> and <code>/ready</code>.</footer>
</main>
</body>
</html>
`;
}
