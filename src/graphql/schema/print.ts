import { printSchemaWithDirectives } from '@graphql-tools/utils';
import { schema } from './index.js';

/** The SDL published at schema/schema.graphql, with the stability directives where they are used. */
export function printPublishedSchema(): string {
  return `${printSchemaWithDirectives(schema).trim()}\n`;
}
