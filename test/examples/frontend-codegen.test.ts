import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { expect, it } from 'vitest';
import { database } from '../helpers/app.js';
import { projectRoot } from '../helpers/process.js';

const run = promisify(execFile);
const example = join(projectRoot, 'examples/frontend-codegen');
const bin = (name: string) => join(projectRoot, 'node_modules/.bin', name);

// One database project is enough: both would write the same generated folder.
it.skipIf(database !== 'sqlite')(
  'the frontend codegen example generates typed documents that type-check',
  {
    timeout: 120_000,
  },
  async () => {
    await run(bin('graphql-codegen'), ['--config', 'codegen.ts', '--silent'], { cwd: example });
    const { stdout } = await run(bin('tsc'), ['-p', 'tsconfig.json'], { cwd: example });
    expect(stdout).toBe('');
  },
);
