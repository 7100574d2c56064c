/** `npm run schema:print`: writes schema/schema.graphql from the code. */
import { writeFileSync } from 'node:fs';
import { parseCommand } from '../../cli.js';
import { printPublishedSchema } from './print.js';

parseCommand({
  name: 'npm run schema:print',
  synopsis: '',
  help: 'Writes schema/schema.graphql, the published GraphQL SDL, from the code (a test fails when\nthe committed file differs).',
});

writeFileSync(new URL('../../../schema/schema.graphql', import.meta.url), printPublishedSchema());
console.log('wrote schema/schema.graphql');
