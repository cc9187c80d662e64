import { writeFileSync } from 'node:fs';
import { clientTypes } from './client-types.js';
import { openApiDocument } from './openapi-document.js';

const target = new URL('../packages/client/src/generated/api.ts', import.meta.url);
writeFileSync(target, clientTypes(await openApiDocument()));
console.log('wrote packages/client/src/generated/api.ts');
