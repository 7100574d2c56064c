import { setFlagsFromString } from 'node:v8';

/**
 * Loaded before the server (`npm start`'s `--import`): how V8 collects garbage, where its versions
 * differ. Node 24's V8 (13) keeps the pages a full collection frees, resident, until a collection
 * that reduces memory (which runs only once the process idles); Node 20's gives them back. While V8
 * marks incrementally the program allocates past the heap's limit, so under a flood of allocation
 * Node 24 kept each overshoot: marking in one pause keeps the heap within its limit. Node 20 keeps
 * incremental marking, which costs it less CPU. Measured in docs/operations.md.
 */
const v8Major = Number(process.versions.v8.split('.')[0]);
if (v8Major >= 13) setFlagsFromString('--no-incremental-marking');
