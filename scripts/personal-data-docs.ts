import { erasureAction } from '../src/registry/erasure-rule.js';
import { userRelations } from '../src/gdpr/erase-user.js';
import { retainable } from '../src/gdpr/retention-policies.js';
import { resources } from '../src/registry/index.js';

/** Start and end markers of the generated part of docs/gdpr.md. */
export const personalDataMarkers = ['<!-- personal-data:start (npm run docs) -->', '<!-- personal-data:end -->'] as const;

/**
 * The personal-data table of docs/gdpr.md, from the registry: every personal and special
 * field, its erasure rule, and whether erasure and subject export reach it through a
 * reference to users.
 */
export function personalDataTable(): string {
  const linked = new Set(['users', ...userRelations().map((r) => r.resource.name)]);
  const rows = resources.flatMap((resource) =>
    resource.fieldNames.flatMap((name) => {
      const field = resource.fields[name];
      if (!field || (field.gdpr !== 'personal' && field.gdpr !== 'special')) return [];
      const rule = erasureAction(field);
      const reach =
        resource.name === 'audit-logs'
          ? 'sealed per subject; unreadable after erasure'
          : linked.has(resource.name)
            ? 'erased and exported with the user'
            : retainable(resource)
              ? 'retention `anonymize` (no user reference)'
              : resource.tenancy === 'node'
                ? 'no user reference: its own update while the node lives; cleared `TENANT_CONTACT_RETENTION_DAYS` after the node is deleted'
                : 'no user reference: changed through its own update';
      return [`| \`${resource.name}\` | \`${name}\` | ${field.gdpr} | ${resource.name === 'audit-logs' ? '—' : `\`${rule}\``} | ${reach} |`];
    }),
  );
  const references = userRelations()
    .map((r) => `\`${r.resource.name}.${r.field}\``)
    .join(', ');
  return [
    personalDataMarkers[0],
    '| Resource | Field | Class | Erasure rule | Reached by |',
    '|---|---|---|---|---|',
    ...rows,
    '',
    `Records that reference users (erased and exported with them): ${references}.`,
    personalDataMarkers[1],
  ].join('\n');
}

/** `docs/gdpr.md` with its generated part replaced by today's registry. */
export function withPersonalDataTable(markdown: string): string {
  const [start, end] = personalDataMarkers;
  const from = markdown.indexOf(start);
  const to = markdown.indexOf(end);
  if (from < 0 || to < from) throw new Error('docs/gdpr.md lost its personal-data markers');
  return `${markdown.slice(0, from)}${personalDataTable()}${markdown.slice(to + end.length)}`;
}
