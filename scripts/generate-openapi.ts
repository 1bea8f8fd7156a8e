import { writeFileSync } from 'node:fs';
import { openApiText } from '../contract/openapi.ts';

writeFileSync(new URL('../openapi.json', import.meta.url), openApiText());
console.log('wrote openapi.json');
