/**
 * `npm run codegen`: the tests' typed GraphQL documents (`test/generated/`), from codegen.ts by
 * GraphQL Code Generator's API, so that the command answers --help and refuses an unknown option
 * as every command of the project does (the tool's own CLI accepts anything).
 */
import { generate } from '@graphql-codegen/cli';
import config from '../codegen.js';
import { attempt, parseCommand } from '../src/cli.js';

const command = {
  name: 'npm run codegen',
  synopsis: '',
  help: `Writes test/generated/ (typed GraphQL documents for the tests) from schema/schema.graphql and
the documents in test/, with GraphQL Code Generator and the settings of codegen.ts. npm test runs
it first.`,
};

parseCommand(command);
await attempt(command, () => generate({ ...config, silent: true }, true));
