import { spawn } from 'node:child_process';
import { expect, it } from 'vitest';
import { describeDb } from '../helpers/app.js';
import { childDatabase, projectRoot } from '../helpers/process.js';
import { startServer } from '../helpers/server.js';

/**
 * Starts `node dist/server.js` with `env` where it is expected to stop at once; a server that
 * starts instead is stopped after 10 s (its exit code is then the signal's, not 1).
 */
async function refusedStart(env: Record<string, string>) {
  const db = childDatabase();
  const child = spawn(process.execPath, ['dist/server.js'], {
    cwd: projectRoot,
    env: { ...process.env, DATABASE_URL: db.url, PORT: '0', AUTH_JWT_SECRET: '', ...env },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const deadline = setTimeout(() => child.kill('SIGKILL'), 10_000);
  try {
    // 'close', not 'exit': the process may exit before its output has been read.
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    return { code, stderr };
  } finally {
    clearTimeout(deadline);
    await db.drop();
  }
}

describeDb('production rules at start', { timeout: 60_000 }, () => {
  it('refuses an HS256 secret shorter than 32 bytes in production: one line naming AUTH_JWT_SECRET', async () => {
    const { code, stderr } = await refusedStart({ NODE_ENV: 'production', AUTH_JWT_SECRET: 'abc' });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines.find((line) => line.includes('AUTH_JWT_SECRET'))).toMatch(
      /AUTH_JWT_SECRET: must be at least 32 bytes in production/,
    );
    // No stack trace: a sentence, not an exception.
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('gives every NODE_ENV but unset, development and test the production rules (no generated secret)', async () => {
    for (const value of ['staging', 'prod', 'Production']) {
      const { code, stderr } = await refusedStart({ NODE_ENV: value });
      expect(code, value).toBe(1);
      expect(stderr, value).toMatch(/AUTH_JWT_SECRET or AUTH_JWKS_URL must be set in production/);
    }
  });

  it('offers no token on / nor in GraphiQL under NODE_ENV=staging', async () => {
    const server = await startServer({
      NODE_ENV: 'staging',
      AUTH_JWT_SECRET: 'a-staging-secret-that-is-long-enough-0123456789',
    });
    try {
      const html = { accept: 'text/html' };
      const landing = await (await fetch(`${server.url}/`, { headers: html })).text();
      expect(landing).not.toMatch(/Development token|eyJ/);
      const graphiql = await (await fetch(`${server.url}/graphql`, { headers: html })).text();
      expect(graphiql).not.toMatch(/Bearer eyJ/);
    } finally {
      await server.stop();
    }
  });
});
