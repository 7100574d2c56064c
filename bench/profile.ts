import { readFileSync } from 'node:fs';
import { fail, parseCommand, UsageError } from '../src/cli.js';

/**
 * Summarises V8 `.cpuprofile`s (from `npm run bench -- --profile`, a file per saturation run), taken
 * together: self time by package and by function, and total (inclusive) time of the heaviest
 * functions. `--help` gives its usage.
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const command = { name: 'npx tsx bench/profile.ts' };
const { values, positionals: files } = parseCommand({
  ...command,
  synopsis: '<file.cpuprofile>... [--rows <n>]',
  help: `Summarises CPU profiles taken together: self time by package and by function, and the
inclusive time of the heaviest functions.

  --rows <n>   functions listed (default 25)`,
  options: { rows: { type: 'string', default: '25' } },
  allowPositionals: true,
});
if (files.length === 0) fail(command, new UsageError('name at least one .cpuprofile file'));
const rows = Number(values.rows);
/** The profiles as one: each file's node ids moved past the previous files'. */
const profile: Profile = { nodes: [], samples: [], timeDeltas: [] };
let offset = 0;
for (const file of files) {
  const one = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  for (const node of one.nodes) {
    profile.nodes.push({
      ...node,
      id: node.id + offset,
      ...(node.children ? { children: node.children.map((child) => child + offset) } : {}),
    });
  }
  // One push per sample: a long profile has more samples than a call takes arguments.
  for (const id of one.samples) profile.samples.push(id + offset);
  for (const delta of one.timeDeltas) profile.timeDeltas.push(delta);
  offset += one.nodes.reduce((max, node) => Math.max(max, node.id), 0);
}

const selfMicros = new Map<number, number>();
profile.samples.forEach((id, index) => {
  selfMicros.set(id, (selfMicros.get(id) ?? 0) + (profile.timeDeltas[index] ?? 0));
});
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parent = new Map<number, number>();
for (const node of profile.nodes)
  for (const child of node.children ?? []) parent.set(child, node.id);

function packageOf(url: string): string {
  if (!url) return '(native / vm)';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1] as string;
  if (url.startsWith('node:')) return 'node (built-in)';
  const project = /\/(src|bench|test)\//.exec(url);
  return project ? `project ${project[1]}/` : url;
}

const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame;
  const where = url
    ? `${url.replace(/^.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}:${lineNumber + 1}`
    : '';
  return `${functionName || '(anonymous)'} ${where}`;
};

const total = [...selfMicros.values()].reduce((a, b) => a + b, 0);
const idle = [...selfMicros].filter(([id]) => {
  const name = nodes.get(id)?.callFrame.functionName;
  return name === '(idle)' || name === '(program)';
});
const idleMicros = idle.reduce((sum, [, micros]) => sum + micros, 0);

function top(map: Map<string, number>, title: string) {
  console.log(`\n${title}`);
  const busy = total - idleMicros;
  for (const [key, micros] of [...map].sort((a, b) => b[1] - a[1]).slice(0, rows)) {
    console.log(`${((100 * micros) / busy).toFixed(1).padStart(6)}%  ${key}`);
  }
}

const byPackage = new Map<string, number>();
const byFunction = new Map<string, number>();
const inclusive = new Map<string, number>();
for (const [id, micros] of selfMicros) {
  const node = nodes.get(id);
  if (!node || idle.some(([idleId]) => idleId === id)) continue;
  const pkg = packageOf(node.callFrame.url);
  byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + micros);
  byFunction.set(label(node), (byFunction.get(label(node)) ?? 0) + micros);
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const ancestor = nodes.get(at);
    if (!ancestor) break;
    const key = label(ancestor);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + micros);
  }
}

console.log(
  `${files.length === 1 ? files[0] : `${files.length} profiles`}: ${(total / 1e6).toFixed(1)} s sampled, ${(((total - idleMicros) / total) * 100).toFixed(0)}% busy; shares below are of busy time`,
);
top(byPackage, 'self time by package');
top(byFunction, 'self time by function');
top(inclusive, 'total time by function (self + callees)');
