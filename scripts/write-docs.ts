import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { committedResults, withBenchmarkTable } from './benchmarks-page.js';
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
const benchmarks = new URL('../BENCHMARKS.md', import.meta.url);
const results = committedResults(fileURLToPath(new URL('..', import.meta.url)));
writeFileSync(benchmarks, withBenchmarkTable(readFileSync(benchmarks, 'utf8'), results.files));
console.log(`wrote BENCHMARKS.md (targets table, from the ${results.files.length} results files ${results.source === 'git' ? 'git tracks' : 'in bench/results: git is not available'})`);
