/** `npm run openapi:print`: writes schema/openapi.json from the route declarations. */
import { writeFileSync } from 'node:fs';
import { loadConfig } from '../config.js';
import { openApiJson } from './document.js';

// The committed document carries the default sunset, whatever this shell's environment says.
writeFileSync(new URL('../../schema/openapi.json', import.meta.url), openApiJson(loadConfig({})));
console.log('wrote schema/openapi.json');
