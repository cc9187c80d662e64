import { writeFileSync } from 'node:fs';
import { resourceDocs } from './resource-docs.js';

writeFileSync(new URL('../docs/resources.md', import.meta.url), resourceDocs());
console.log('wrote docs/resources.md');
