import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../../src/config/settings.js';
import { configurationDocs } from '../../../scripts/configuration-docs.js';
import { withPersonalDataTable } from '../../../scripts/personal-data-docs.js';
import { resourceDocs } from '../../../scripts/resource-docs.js';

const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');

describe('documentation stays current', () => {
  it('docs/resources.md matches the registry (run `npm run docs` after changing it)', () => {
    expect(read('docs/resources.md')).toBe(resourceDocs());
  });

  it('docs/gdpr.md lists the personal data the registry declares (run `npm run docs` after changing it)', () => {
    const gdpr = read('docs/gdpr.md');
    expect(gdpr).toBe(withPersonalDataTable(gdpr));
  });

  it('docs/configuration.md matches the settings declarations (run `npm run docs` after changing src/config/settings.ts)', () => {
    expect(read('docs/configuration.md')).toBe(configurationDocs());
  });

  it('docs/configuration.md lists every setting once, with its default', () => {
    const rows = read('docs/configuration.md')
      .split('\n')
      .filter((line) => line.startsWith('| `'));
    expect(rows).toHaveLength(Object.keys(settings).length);
    for (const setting of Object.values(settings)) {
      const row = rows.find((line) => line.startsWith(`| \`${setting.env}\` |`));
      expect(row, setting.env).toBeDefined();
      expect(row).toContain(setting.defaultText === undefined ? '| unset |' : `| \`${setting.defaultText}\` |`);
    }
  });

  it('the README points to docs/configuration.md and keeps no copy of the table', () => {
    const readme = read('README.md');
    expect(readme).toContain('](docs/configuration.md)');
    expect(readme).not.toMatch(/^\| `PORT` \|/m);
  });
});
