import { setFlagsFromString } from 'node:v8';

/**
 * Loaded before the server (`npm start`'s `--import`): the state of V8 that the server's speed and
 * memory depend on, set before anything runs.
 *
 * How V8 collects garbage, where its versions differ. Node 24's V8 (13) keeps the pages a full
 * collection frees, resident, until a collection that reduces memory (which runs only once the
 * process idles); Node 20's gives them back. While V8 marks incrementally the program allocates
 * past the heap's limit, so under a flood of allocation Node 24 kept each overshoot: marking in one
 * pause keeps the heap within its limit. Node 20 keeps incremental marking, which costs it less
 * CPU. Measured in docs/operations.md.
 */
const v8Major = Number(process.versions.v8.split('.')[0]);
if (v8Major >= 13) setFlagsFromString('--no-incremental-marking');

/**
 * `process.nextTick`, compiled while only these calls have run. Node's streams call it several
 * times a request, and how V8 compiles its tick object (a literal with computed keys) depends on
 * what the process did before it became hot: compiled during the first requests, each call may
 * define the object in V8's runtime, 2,500 instructions instead of about 400, 5 to 7% of a REST
 * read (bench/rounds.md in git history, the twenty-second and twenty-third rounds). Compiled here first, with the
 * three ways Node calls it (no argument, one, two), it stays on the fast path.
 */
const noop = () => {};
for (let round = 0; round < 200; round++) {
  for (let call = 0; call < 250; call++) {
    process.nextTick(noop);
    process.nextTick(noop, call);
    process.nextTick(noop, call, round);
  }
  await new Promise((resolve) => setImmediate(resolve));
}
