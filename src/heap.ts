import { setFlagsFromString } from 'node:v8';

/**
 * Loaded before the server (`npm start`'s `--import`): how V8 collects the server's garbage, where
 * that differs by V8 version, so that every Node keeps the heap within the start script's limits.
 *
 * Node 24's V8 (13) keeps the pages a full collection frees, for reuse, until a collection that
 * reduces memory, which runs only once the process idles; Node 20's V8 (11) gives them back. While
 * V8 marks incrementally the program goes on allocating past the heap's limit, so under a flood of
 * allocation (1,500 distinct 90 KB documents) Node 24 kept every such overshoot resident: the
 * process grew by 142 to 266 MB, where Node 20 grows by about 60. Marking in one pause keeps the
 * heap within its limit (107 to 115 MB). Node 20 keeps incremental marking: there, marking in one
 * pause costs 6 to 9% of CPU and gains nothing (docs/operations.md).
 */
const v8Major = Number(process.versions.v8.split('.')[0]);
if (v8Major >= 13) setFlagsFromString('--no-incremental-marking');
