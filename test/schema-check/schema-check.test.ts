import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UsageReport } from '../../src/usage/report.js';
import { createTestApp, database, databaseAvailable, type TestApp } from '../helpers/app.js';
import { projectRoot, runNode } from '../helpers/process.js';

const sdl = readFileSync(join(projectRoot, 'schema/schema.graphql'), 'utf8');
const openApi = readFileSync(join(projectRoot, 'schema/openapi.json'), 'utf8');
const DAY_MS = 86_400_000;

/** A git checkout of its own holding schema/, where each `commit` is a new commit. */
function checkout() {
  const dir = mkdtempSync(join(tmpdir(), 'schema-check-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: dir,
      stdio: 'pipe',
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 'test',
        GIT_AUTHOR_EMAIL: 'test@example.com',
        GIT_COMMITTER_NAME: 'test',
        GIT_COMMITTER_EMAIL: 'test@example.com',
      },
    });
  git('init', '--quiet');
  mkdirSync(join(dir, 'schema'));
  const write = (files: { sdl?: string; openApi?: string }) => {
    if (files.sdl !== undefined) writeFileSync(join(dir, 'schema/schema.graphql'), files.sdl);
    if (files.openApi !== undefined) writeFileSync(join(dir, 'schema/openapi.json'), files.openApi);
  };
  return {
    dir,
    write,
    commit(files: { sdl?: string; openApi?: string }, message = 'change') {
      write(files);
      git('add', '-A');
      git('commit', '--quiet', '-m', message);
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `npm run schema:check` (the built command) in `cwd`; its exit code and output. */
const schemaCheck = (cwd: string, args: string[], env: Record<string, string> = {}) =>
  runNode([join(projectRoot, 'dist/schema-check/check-cli.js'), ...args], env, { cwd });

/** A usage report as GET /usage writes it, with `uses` of coordinates `daysAgo` days ago. */
function report(uses: { coordinate: string; api: 'graphql' | 'rest'; daysAgo: number }[]) {
  const now = Date.now();
  const body: UsageReport = {
    generatedAt: new Date(now).toISOString(),
    from: new Date(now - 29 * DAY_MS).toISOString().slice(0, 10),
    to: new Date(now).toISOString().slice(0, 10),
    coordinates: uses.map(({ coordinate, api, daysAgo }) => {
      const at = new Date(now - daysAgo * DAY_MS).toISOString();
      const seen = { count: 3, firstSeen: at, lastSeen: at };
      return {
        coordinate,
        api,
        ...seen,
        clients: [{ name: 'shop-web', ...seen, versions: [{ version: '4.1.0', ...seen }] }],
      };
    }),
  };
  return `${JSON.stringify(body)}\n`;
}

/** Today's SDL with a deprecated `Pet.nickname`: the base of a removal. */
const withNickname = sdl.replace(
  /^type Pet \{\n/m,
  'type Pet {\n  nickname: String @deprecated(reason: "Use name.")\n',
);

/** Today's OpenAPI document without an operation (or a whole path). */
function without(path: string, method?: string): string {
  const document = JSON.parse(openApi);
  if (method) delete document.paths[path][method];
  else delete document.paths[path];
  return JSON.stringify(document, null, 2);
}

// The command reads files and git, never the database: one run is enough.
describe.runIf(database === 'sqlite')('npm run schema:check', () => {
  const repo = checkout();
  afterAll(() => repo.remove());

  it('passes on today’s schema and OpenAPI document against themselves', async () => {
    repo.commit({ sdl, openApi }, 'base');
    const result = await schemaCheck(repo.dir, ['--base', 'HEAD']);
    expect(result.stdout).toContain('0 change(s): 0 breaking (0 allowed), 0 dangerous, 0 safe.');
    expect(result.code).toBe(0);
  });

  it('fails on a removed field, and names it', async () => {
    repo.write({
      sdl: sdl.replace(/^type Pet \{\n((?: .*\n)*?) {2}name: String!\n/m, 'type Pet {\n$1'),
    });
    const result = await schemaCheck(repo.dir, ['--base', 'HEAD']);
    expect(result.stdout).toMatch(
      /^breaking +graphql +FIELD_REMOVED +Pet\.name: Field 'name' was removed from object type 'Pet'\n +blocks: it was not deprecated in the base$/m,
    );
    expect(result.stdout).toContain(
      'schema:check failed: 1 breaking change(s) would break clients.',
    );
    expect(result.code).toBe(1);
  });

  it('fails on a removed REST path', async () => {
    repo.write({ sdl, openApi: without('/categories/{categoryId}') });
    const result = await schemaCheck(repo.dir, ['--base', 'HEAD']);
    for (const method of ['GET', 'PUT', 'DELETE'])
      expect(result.stdout).toMatch(
        new RegExp(`^breaking +rest +remove +${method} /categories/\\{categoryId\\}: `, 'm'),
      );
    expect(result.code).toBe(1);
  });

  it('prints safe and dangerous changes without failing', async () => {
    const added = sdl
      .replace(/^type Pet \{\n/m, 'type Pet {\n  nickname: String\n')
      .replace(/^enum PetStatus \{\n/m, 'enum PetStatus {\n  reserved\n');
    // A new error code: every response in the Error shape can now carry it.
    const document = JSON.parse(openApi);
    document.components.schemas.Error.properties.code.enum.push('NEW_CODE');
    repo.write({ sdl: added, openApi: JSON.stringify(document, null, 2) });
    const result = await schemaCheck(repo.dir, ['--base', 'HEAD']);
    expect(result.stdout).toMatch(/^dangerous +graphql +ENUM_VALUE_ADDED +PetStatus\.reserved: /m);
    expect(result.stdout).toMatch(/^safe +graphql +FIELD_ADDED +Pet\.nickname: /m);
    expect(result.stdout).toMatch(/^dangerous +rest +add +GET \/pets\/\{petId\} .*code\.enum\./m);
    expect(result.stdout).not.toMatch(/^breaking/m);
    expect(result.code).toBe(0);
  });

  describe('a removed element that was deprecated in the base', () => {
    const usageFile = () => join(repo.dir, 'usage.json');
    beforeAll(() => {
      repo.commit({ sdl: withNickname, openApi }, 'deprecate Pet.nickname');
      repo.write({ sdl, openApi: without('/pets/{petId}', 'get') });
    });

    it('passes when the usage shows no client used it within --days', async () => {
      writeFileSync(
        usageFile(),
        report([
          { coordinate: 'Pet.name', api: 'graphql', daysAgo: 1 },
          // Used, but before the window.
          { coordinate: 'Pet.nickname', api: 'graphql', daysAgo: 20 },
        ]),
      );
      const result = await schemaCheck(repo.dir, [
        '--base',
        'HEAD',
        '--usage',
        usageFile(),
        '--days',
        '14',
      ]);
      expect(result.stdout).toMatch(
        /^breaking +graphql +FIELD_REMOVED +Pet\.nickname: .*\n +allowed: deprecated in the base, and no client used it in the last 14 days$/m,
      );
      // GET /pets/{petId} is deprecated in the base too, and unused.
      expect(result.stdout).toMatch(
        /^breaking +rest +remove +GET \/pets\/\{petId\}: .*\n +allowed: /m,
      );
      expect(result.stdout).toContain('schema:check passed');
      expect(result.code).toBe(0);
    });

    it('fails when a client used it within the window, naming the client', async () => {
      writeFileSync(
        usageFile(),
        report([{ coordinate: 'Pet.nickname', api: 'graphql', daysAgo: 3 }]),
      );
      const result = await schemaCheck(repo.dir, ['--base', 'HEAD', '--usage', usageFile()]);
      expect(result.stdout).toMatch(
        /^breaking +graphql +FIELD_REMOVED +Pet\.nickname: .*\n +blocks: deprecated in the base, but used in the last 30 days by shop-web \(last \d{4}-\d\d-\d\d\)$/m,
      );
      expect(result.code).toBe(1);
    });

    it('fails without usage data, or with a report that does not cover the window', async () => {
      const none = await schemaCheck(repo.dir, ['--base', 'HEAD']);
      expect(none.stdout).toContain(
        'blocks: deprecated in the base, but no usage data (--usage) shows it unused',
      );
      expect(none.code).toBe(1);
      writeFileSync(usageFile(), report([]));
      const tooShort = await schemaCheck(repo.dir, [
        '--base',
        'HEAD',
        '--usage',
        usageFile(),
        '--days',
        '60',
      ]);
      expect(tooShort.stdout).toContain(
        'usage: 30 day(s) covered, fewer than --days 60: it shows nothing unused, so no removal passes on its ground',
      );
      expect(tooShort.stdout).toMatch(
        /blocks: deprecated in the base, but the usage report covers only 30 day\(s\), since \d{4}-\d\d-\d\d, not the last 60$/m,
      );
      expect(tooShort.code).toBe(1);
    });
  });

  it('passes with nothing to compare in a checkout of a single commit; refuses a ref it does not know', async () => {
    const single = checkout();
    try {
      single.commit({ sdl, openApi }, 'only');
      const result = await schemaCheck(single.dir, ['--base', 'HEAD~1']);
      expect(result.stdout).toContain(
        'this checkout has no HEAD~1 (a single commit?): nothing to compare with',
      );
      expect(result.code).toBe(0);
      // The default base in a checkout without tags or origin: HEAD~1.
      expect((await schemaCheck(single.dir, [])).code).toBe(0);
      const unknown = await schemaCheck(single.dir, ['--base', 'no-such-branch']);
      expect(unknown).toMatchObject({
        code: 2,
        stderr: expect.stringContaining('no commit is named no-such-branch'),
      });
    } finally {
      single.remove();
    }
  });
});

describe.runIf(database === 'sqlite' && databaseAvailable)(
  'npm run schema:check --usage <URL>',
  () => {
    let app: TestApp;
    let server: ReturnType<typeof import('node:http').createServer>;
    let url = '';
    const repo = checkout();
    beforeAll(async () => {
      app = await createTestApp();
      const { createServer } = await import('node:http');
      const { getRequestListener } = await import('@hono/node-server');
      server = createServer(getRequestListener(app.fetch));
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address();
      url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/usage`;
      // The deprecated GET /pets/{petId} goes away in the working tree.
      repo.commit({ sdl, openApi }, 'base');
      repo.write({ openApi: without('/pets/{petId}', 'get') });
    });
    afterAll(async () => {
      await new Promise((resolve) => server?.close(resolve));
      await app?.close();
      repo.remove();
    });

    it('reads a running gateway’s /usage with USAGE_TOKEN: a client still calls the route, so it fails', async () => {
      const token = await app.token(['admin:read']);
      const denied = await schemaCheck(repo.dir, ['--base', 'HEAD', '--usage', url]);
      expect(denied.code).toBe(2);
      expect(denied.stderr).toContain('answered 401 (set USAGE_TOKEN to a token with admin:read)');

      // The test's database was made with this file: it covers today alone.
      const young = await schemaCheck(repo.dir, ['--base', 'HEAD', '--usage', url], {
        USAGE_TOKEN: token,
      });
      expect(young.stdout).toContain(
        'usage: 1 day(s) covered, fewer than --days 30: it shows nothing unused, so no removal passes on its ground',
      );
      expect(young.stdout).toMatch(
        /^breaking +rest +remove +GET \/pets\/\{petId\}: .*\n +blocks: deprecated in the base, but the usage report covers only 1 day\(s\), since \d{4}-\d\d-\d\d, not the last 30$/m,
      );
      expect(young.code).toBe(1);

      const unused = await schemaCheck(
        repo.dir,
        ['--base', 'HEAD', '--usage', url, '--days', '1'],
        { USAGE_TOKEN: token },
      );
      expect(unused.stdout).toMatch(
        /^breaking +rest +remove +GET \/pets\/\{petId\}: .*\n +allowed: /m,
      );
      expect(unused.code).toBe(0);

      await app.fetch(
        new Request('http://petstore.test/api/pets/1', {
          headers: { 'graphql-client-name': 'legacy-shop' },
        }),
      );
      const used = await schemaCheck(repo.dir, ['--base', 'HEAD', '--usage', url, '--days', '1'], {
        USAGE_TOKEN: token,
      });
      expect(used.stdout).toMatch(
        /blocks: deprecated in the base, but used in the last 1 days by legacy-shop/,
      );
      expect(used.code).toBe(1);
    });
  },
);

/** A local server answering every request with `answer`; closed (its connections too) after. */
function localServer(answer: import('node:http').RequestListener) {
  let server: import('node:http').Server | undefined;
  beforeAll(async () => {
    const { createServer } = await import('node:http');
    server = createServer(answer);
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    server?.closeAllConnections();
    await new Promise((resolve) => server?.close(resolve));
  });
  return () => {
    const address = server?.address();
    return `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/usage`;
  };
}

describe.runIf(database === 'sqlite')('npm run schema:check --usage, bounded', () => {
  const repo = checkout();
  beforeAll(() => repo.commit({ sdl, openApi }, 'base'));
  afterAll(() => repo.remove());
  const check = (usage: string, ...bounds: string[]) =>
    schemaCheck(repo.dir, ['--base', 'HEAD', '--usage', usage, ...bounds]);
  const hint = ' (see npm run schema:check -- --help)\n';

  // An endless body: 64 KB at a time while the reader reads, 64 MB at most.
  const endless = localServer((_request, response) => {
    response.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, ' ');
    let left = 1024;
    const pump = () => {
      while (left > 0 && !response.destroyed) {
        left--;
        if (!response.write(chunk)) return void response.once('drain', pump);
      }
      response.end();
    };
    pump();
  });
  // Never answers; or sends its headers and the start of a body, then nothing.
  const silent = localServer((request, response) => {
    if (request.url?.endsWith('?partly')) response.writeHead(200).write('{');
  });

  it('stops reading a URL’s body at --usage-max-mb, in one line naming the bound', async () => {
    const result = await check(endless(), '--usage-max-mb', '1');
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `schema:check: --usage ${endless()} answered more than 1 MB (--usage-max-mb): not a usage report, or raise the bound${hint}`,
    });
  });

  it('gives up on a URL that does not answer in full within --usage-timeout', async () => {
    for (const url of [silent(), `${silent()}?partly`]) {
      const result = await check(url, '--usage-timeout', '1');
      expect(result).toMatchObject({
        code: 2,
        stdout: '',
        stderr: `schema:check: --usage ${url} did not answer in full within 1 s (--usage-timeout)${hint}`,
      });
    }
  });

  it('refuses a file that is not a regular one, larger than --usage-max-mb, or missing', async () => {
    const large = join(repo.dir, 'large.json');
    writeFileSync(large, Buffer.alloc(2 * 1024 * 1024, ' '));
    const missing = join(repo.dir, 'missing.json');
    const answers = await Promise.all([
      check('/dev/zero'),
      check(large, '--usage-max-mb', '1'),
      check(missing),
    ]);
    expect(answers.map(({ code, stdout, stderr }) => ({ code, stdout, stderr }))).toEqual([
      {
        code: 2,
        stdout: '',
        stderr: `schema:check: --usage /dev/zero is not a regular file${hint}`,
      },
      {
        code: 2,
        stdout: '',
        stderr: `schema:check: --usage ${large} is larger than 1 MB (--usage-max-mb): not a usage report, or raise the bound${hint}`,
      },
      { code: 2, stdout: '', stderr: `schema:check: --usage ${missing}: no such file${hint}` },
    ]);
  });

  it('refuses bounds that are not whole numbers', async () => {
    const result = await check('/dev/zero', '--usage-timeout', '0');
    expect(result).toMatchObject({
      code: 2,
      stderr: `schema:check: --usage-timeout must be a whole number of seconds, 1 or more, not "0"${hint}`,
    });
  });
});
