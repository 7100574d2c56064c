import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Instructions a function ran itself (callees excluded), and where it belongs. */
export interface FunctionCost {
  name: string;
  group: string;
  instructions: number;
}

/** Instructions of a function's calls to another, the callee's own and its callees' included. */
export interface CallCost {
  caller: string;
  callee: string;
  instructions: number;
}

export interface Callgrind {
  functions: FunctionCost[];
  calls: CallCost[];
}

/**
 * Where a function belongs: JavaScript by package (V8's code names carry the file), V8's builtins,
 * V8's C++ (its runtime, the collector, the compilers), Node's C++, or the library it is in.
 */
function groupOf(name: string, object: string): string {
  if (name.startsWith('Builtins_') || /^(Builtin|BytecodeHandler|Handler|Stub):/.test(name))
    return 'V8 builtins';
  if (/^(JS|LazyCompile|Function|Script):/.test(name)) {
    const packageName = /node_modules\/((?:@[^/]+\/)?[^/:]+)/.exec(name)?.[1];
    if (packageName) return `JS ${packageName}`;
    if (/ node:/.test(name)) return 'JS node (built-in)';
    const project = /\/(dist|bench\/results\/build)\//.exec(name);
    return project ? 'JS the project' : 'JS (other)';
  }
  if (name.startsWith('0x')) return 'JIT code unnamed';
  if (name.startsWith('v8::internal::Runtime_')) return 'V8 runtime';
  if (name.startsWith('v8::') || name.startsWith('cppgc::')) return 'V8 C++';
  if (name.startsWith('node::')) return 'node C++';
  return basename(object) || '(unknown object)';
}

/** V8's `--perf-basic-prof` map: start address, size, and the name of each piece of code made. */
function readPerfMap(file: string) {
  return readFileSync(file, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const match = /^([0-9a-f]+) ([0-9a-f]+) (.*)$/.exec(line);
      if (!match) return [];
      const start = BigInt(`0x${match[1]}`);
      return [{ start, end: start + BigInt(`0x${match[2]}`), name: match[3] as string }];
    });
}

/**
 * Names JIT addresses: the last entry of the map that covers an address wins, since V8 reuses the
 * memory of code it dropped for code it makes later.
 */
function nameAddresses(addresses: readonly bigint[], perfMapFile: string): Map<bigint, string> {
  const sorted = [...addresses].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const names = new Map<bigint, string>();
  for (const entry of readPerfMap(perfMapFile)) {
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >> 1;
      if ((sorted[middle] as bigint) < entry.start) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < sorted.length && (sorted[at] as bigint) < entry.end; at++)
      names.set(sorted[at] as bigint, entry.name);
  }
  return names;
}

/**
 * Reads one thread's callgrind dump: the instructions each function ran itself, and what each of
 * its calls to another cost. A function that callgrind knows only by its address (V8's generated
 * code) is named from the perf map.
 */
export function readCallgrind(dumpFile: string, perfMapFile: string): Callgrind {
  // Compressed names: `(id) name` defines an id, `(id)` refers to it; a callee's object or
  // function (`cob`, `cfn`) may define an id that a later `ob` or `fn` refers to. Files are not read.
  const names = { ob: new Map<string, string>(), fn: new Map<string, string>() };
  const kindOf = { ob: 'ob', cob: 'ob', fn: 'fn', cfn: 'fn' } as const;
  const resolve = (kind: keyof typeof names, value: string) => {
    const match = /^\((\d+)\)(?: (.*))?$/.exec(value);
    if (!match) return value;
    const [, id, name] = match as unknown as [string, string, string | undefined];
    if (name !== undefined) names[kind].set(id, name);
    return names[kind].get(id) ?? `(${id})`;
  };
  let positions = 1;
  let object = '';
  let fn = '';
  let callee = '';
  /** The callee of the cost line that follows a `calls=` line: that cost is the call's. */
  let callOf: string | undefined;
  const self = new Map<string, { object: string; instructions: number }>();
  const calls = new Map<string, CallCost>();
  for (const line of readFileSync(dumpFile, 'utf8').split('\n')) {
    const spec = /^([a-z]+)=(.*)$/.exec(line);
    if (spec) {
      const [, key, value] = spec as unknown as [string, string, string];
      if (key === 'calls') {
        callOf = callee;
        continue;
      }
      const kind = kindOf[key as keyof typeof kindOf];
      if (!kind) continue;
      const name = resolve(kind, value);
      if (key === 'ob') object = name;
      else if (key === 'fn') fn = name;
      else if (key === 'cfn') callee = name;
      continue;
    }
    if (line.startsWith('positions:')) positions = line.split(' ').length - 1;
    if (!/^[0-9+\-*]/.test(line)) continue;
    const instructions = Number(line.split(' ')[positions] ?? 0);
    if (callOf !== undefined) {
      const key = `${fn}\n${callOf}`;
      const call = calls.get(key) ?? { caller: fn, callee: callOf, instructions: 0 };
      call.instructions += instructions;
      calls.set(key, call);
      callOf = undefined;
      continue;
    }
    const entry = self.get(fn) ?? { object, instructions: 0 };
    entry.instructions += instructions;
    self.set(fn, entry);
  }
  // A name with its callers (`--separate-callers`) is `fn'caller'caller's caller`, each maybe an
  // address.
  const isAddress = (part: string) => /^0x[0-9a-f]+$/.test(part);
  const addresses = [
    ...self.keys(),
    ...[...calls.values()].flatMap(({ caller, callee }) => [caller, callee]),
  ]
    .flatMap((name) => name.split("'"))
    .filter(isAddress)
    .map((part) => BigInt(part));
  const jitNames = nameAddresses([...new Set(addresses)], perfMapFile);
  const named = (name: string) =>
    name
      .split("'")
      .map((part) => (isAddress(part) ? (jitNames.get(BigInt(part)) ?? part) : part))
      .join("'");
  const functions = new Map<string, FunctionCost>();
  for (const [address, { object: from, instructions }] of self) {
    const name = named(address);
    const cost = functions.get(name) ?? { name, group: groupOf(name, from), instructions: 0 };
    cost.instructions += instructions;
    functions.set(name, cost);
  }
  return {
    functions: [...functions.values()],
    calls: [...calls.values()].map((call) => ({
      ...call,
      caller: named(call.caller),
      callee: named(call.callee),
    })),
  };
}
