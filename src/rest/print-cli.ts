/** `npm run openapi:print`: writes schema/openapi.json from the route declarations. */
import { writeFileSync } from 'node:fs';
import { parseCommand } from '../cli.js';
import { loadConfig } from '../config.js';
import { openApiJson } from './openapi.js';
import { allRoutes } from './routes/index.js';

parseCommand({
  name: 'npm run openapi:print',
  synopsis: '',
  help: "Writes schema/openapi.json, the REST façade's OpenAPI document, from the route declarations\n(a test fails when the committed file differs).",
});

// The committed document carries the default sunset, whatever this shell's environment says.
writeFileSync(
  new URL('../../schema/openapi.json', import.meta.url),
  openApiJson(allRoutes, loadConfig({})),
);
console.log('wrote schema/openapi.json');
