/** `npm run schema:print`: writes schema/schema.graphql from the code. */
import { writeFileSync } from 'node:fs';
import { printPublishedSchema } from './print.js';

writeFileSync(new URL('../../../schema/schema.graphql', import.meta.url), printPublishedSchema());
console.log('wrote schema/schema.graphql');
