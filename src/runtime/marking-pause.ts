import { setFlagsFromString } from 'node:v8';

/**
 * Node 24's V8 (13) marks the heap incrementally, and while it marks the program allocates past the
 * heap's limit; under a flood of large documents it kept each overshoot, and the server grew past
 * the 150 MB test/server/memory-bounds.test.ts allows (about 170–180 MB). Marking in one pause
 * keeps the heap within its limit. Node 20's V8 (11) gives those pages back, and its incremental
 * marking costs it less CPU, so it keeps it. Set before anything loads (src/server.ts's first
 * import, and the bench's product's).
 */
if (Number(process.versions.v8.split('.')[0]) >= 13) setFlagsFromString('--no-incremental-marking');
