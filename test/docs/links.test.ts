import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { errorStatus } from '../../src/errors/catalogue.js';

const projectRoot = fileURLToPath(new URL('../..', import.meta.url));

/**
 * The documentation stays true to the repository: every relative link names a file that exists
 * (and a heading of it when it has an anchor), and every `npm run <script>` it mentions, in prose
 * or in a code block, is a script of package.json.
 */

/** README.md, docs/**, src/<folder>/README.md and bench/README.md. */
function documents(): string[] {
  const found = ['README.md', 'bench/README.md'].map((path) => join(projectRoot, path));
  const walk = (dir: string, keep: (name: string) => boolean) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name === 'node_modules' || entry.name === 'generated') continue;
      const path = join(dir, entry.name);
      if (entry.isDirectory()) walk(path, keep);
      else if (keep(entry.name)) found.push(path);
    }
  };
  walk(join(projectRoot, 'docs'), (name) => name.endsWith('.md'));
  walk(join(projectRoot, 'src'), (name) => name === 'README.md');
  return found.filter((path) => existsSync(path));
}

/** A heading's anchor as GitHub writes it: lowercase, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-');
}

/** The text of a Markdown file outside its fenced code blocks, and the blocks themselves. */
function split(text: string): { prose: string; code: string } {
  const prose: string[] = [];
  const code: string[] = [];
  let fenced = false;
  for (const line of text.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) {
      fenced = !fenced;
      continue;
    }
    (fenced ? code : prose).push(line);
  }
  return { prose: prose.join('\n'), code: code.join('\n') };
}

function anchorsOf(file: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of split(readFileSync(file, 'utf8')).prose.split('\n')) {
    const heading = /^#{1,6}\s+(.*)$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const anchor = anchorOf(heading);
    const count = seen.get(anchor) ?? 0;
    seen.set(anchor, count + 1);
    anchors.add(count === 0 ? anchor : `${anchor}-${count}`);
  }
  return anchors;
}

/** Relative link targets of a Markdown file: `[text](target)`, outside code blocks. */
function relativeLinks(text: string): string[] {
  const prose = split(text).prose.replace(/`[^`\n]*`/g, '');
  const targets: string[] = [];
  for (const match of prose.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
    const target = match[1] as string;
    if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
    targets.push(target);
  }
  return targets;
}

/** The scripts a text runs with `npm run <name>` (also `npm run -s <name>`, `npm run --silent`). */
function npmRunScripts(text: string): string[] {
  const names: string[] = [];
  for (const match of text.matchAll(/\bnpm run((?:\s+-{1,2}[a-z-]+)*)\s+([\w:.-]+)/g)) {
    names.push(match[2] as string);
  }
  return names;
}

/** The codes of the error table in docs/api.md: the first column of its "## Errors" section. */
function errorTableCodes(): Set<string> {
  const text = readFileSync(join(projectRoot, 'docs/api.md'), 'utf8');
  const section = text.split('\n## Errors\n')[1]?.split('\n## ')[0] ?? '';
  const codes = new Set<string>();
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    for (const match of (row.split('|')[1] ?? '').matchAll(/`([A-Z_]+)`/g))
      codes.add(match[1] as string);
  }
  return codes;
}

/** Environment variables: those of .env.example, OpenTelemetry's and the tests' own. */
const environmentVariables = new Set(
  [
    ...readFileSync(join(projectRoot, '.env.example'), 'utf8').matchAll(/^([A-Z][A-Z0-9_]*)=/gm),
  ].map((match) => match[1] as string),
);
const isVariable = (name: string) =>
  environmentVariables.has(name) ||
  /^(OTEL|TEST|BENCH)_/.test(name) ||
  ['CHROMIUM_PATH', 'VARNISHD_PATH', 'USAGE_TOKEN'].includes(name);

/** Names in code spans that look like error codes and are not: each says why. */
const notErrorCodes = new Set([
  'BAD_REQUEST', // Yoga's own code, named where the docs say it is never answered
  'MALLOC_ARENA_MAX', // glibc's variable, in the bench notes
  'BEFORE_TRACING', // a label of the bench notes
]);

/** Words in code spans (outside code blocks) that name an error code: SCREAMING_SNAKE, or a code. */
function namedCodes(text: string): string[] {
  const names: string[] = [];
  for (const span of split(text).prose.matchAll(/`([^`\n]+)`/g)) {
    for (const [word] of (span[1] as string).matchAll(
      /\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\b[A-Z]{4,}\b/g,
    )) {
      if (word.includes('_') ? !isVariable(word) && !notErrorCodes.has(word) : word in errorStatus)
        names.push(word);
    }
  }
  return names;
}

const scripts = Object.keys(
  (
    JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
      scripts: Record<string, string>;
    }
  ).scripts,
);

describe('the documentation', () => {
  const files = documents();

  it('finds the README, the docs and the folder READMEs', () => {
    const names = files.map((file) => relative(projectRoot, file));
    expect(names).toContain('README.md');
    expect(names).toContain('docs/architecture.md');
    expect(names.filter((name) => name.startsWith('src/')).length).toBeGreaterThan(5);
  });

  it('links only to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of files) {
      for (const target of relativeLinks(readFileSync(file, 'utf8'))) {
        const [path = '', anchor] = target.split('#');
        const linked = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
        const where = `${relative(projectRoot, file)} → ${target}`;
        if (!existsSync(linked)) {
          broken.push(`${where}: no such file`);
          continue;
        }
        if (anchor && statSync(linked).isFile() && linked.endsWith('.md')) {
          if (!anchorsOf(linked).has(anchor)) broken.push(`${where}: no such heading`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only npm scripts that package.json has', () => {
    const unknown: string[] = [];
    for (const file of files) {
      for (const name of npmRunScripts(readFileSync(file, 'utf8'))) {
        if (!scripts.includes(name))
          unknown.push(`${relative(projectRoot, file)}: npm run ${name}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('lists every error code in the error table of docs/api.md, and names no code the table lacks', () => {
    const table = errorTableCodes();
    expect(Object.keys(errorStatus).filter((code) => !table.has(code))).toEqual([]);
    const unknown: string[] = [];
    for (const file of files) {
      for (const code of namedCodes(readFileSync(file, 'utf8'))) {
        if (!table.has(code)) unknown.push(`${relative(projectRoot, file)}: ${code}`);
      }
    }
    expect(unknown).toEqual([]);
  });

  it('is checked by rules that catch what they should', () => {
    expect(
      namedCodes(
        'a `412 PRECONDITION_FAILED`, `DATABASE_URL`, `OTEL_SDK_DISABLED`, `FORBIDDEN`, `GET`, ' +
          '`JSON`, `NO_SUCH_CODE`\n```\nSTILL_NOT_A_CODE\n```',
      ),
    ).toEqual(['PRECONDITION_FAILED', 'FORBIDDEN', 'NO_SUCH_CODE']);
    expect(anchorOf('Running several replicas')).toBe('running-several-replicas');
    expect(anchorOf('The `App` and `createApp`')).toBe('the-app-and-createapp');
    expect(anchorOf('Node.js versions')).toBe('nodejs-versions');
    expect(
      relativeLinks('[a](docs/api.md#errors) [b](https://x.y) `[c](no.md)`\n```\n[d](no.md)\n```'),
    ).toEqual(['docs/api.md#errors']);
    expect(npmRunScripts('run `npm run -s token -- pets:write` then npm run db:seed')).toEqual([
      'token',
      'db:seed',
    ]);
  });
});
