import { readFileSync, writeFileSync } from 'node:fs';
import { configurationDocs } from './configuration-docs.js';
import { withPersonalDataTable } from './personal-data-docs.js';
import { resourceDocs } from './resource-docs.js';

writeFileSync(new URL('../docs/resources.md', import.meta.url), resourceDocs());
console.log('wrote docs/resources.md');
writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationDocs());
console.log('wrote docs/configuration.md');
const gdpr = new URL('../docs/gdpr.md', import.meta.url);
writeFileSync(gdpr, withPersonalDataTable(readFileSync(gdpr, 'utf8')));
console.log('wrote docs/gdpr.md (personal-data table)');
