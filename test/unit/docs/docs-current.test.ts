import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { settings } from '../../../src/config/settings.js';
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

  it('the README configuration table lists every setting with its default', () => {
    const readme = read('README.md');
    for (const setting of Object.values(settings)) {
      const row = readme.split('\n').find((line) => line.startsWith(`| \`${setting.env}\` |`));
      expect(row, setting.env).toBeDefined();
      expect(row).toContain(setting.defaultText === undefined ? 'unset' : `\`${setting.defaultText}\``);
    }
  });
});
