/**
 * Every piece of the product the framework floor uses, in one place: the floor's servers import
 * the product only through this file, so a module that moves in src/ is fixed here alone.
 */
// What the product's server sets about V8 before Prisma's client loads: the floors run as it does.
import '../../src/runtime/wasm-baseline-tier.js';
import '../../src/runtime/marking-pause.js';

export { loadConfig } from '../../src/config.js';
export { type Database, openDatabase } from '../../src/db/client.js';
export { createSharedReads, type SharedReads } from '../../src/db/shared-reads.js';
export { readOnly } from '../../src/domain/changes.js';
export { anonymous } from '../../src/domain/context.js';
export { parseId } from '../../src/domain/ids.js';
export { compiledQueries } from '../../src/graphql/compiled-queries.js';
export { createContext } from '../../src/graphql/context.js';
export type { GraphQLContext } from '../../src/graphql/kit/context.js';
export { ListItemBudget } from '../../src/graphql/kit/list-items.js';
export { Subscriptions } from '../../src/graphql/kit/subscriptions.js';
export { schema } from '../../src/graphql/schema/index.js';
export { databaseLimitMs } from '../../src/limits/time-limit.js';
export { presentPet } from '../../src/pets/rest.js';
export { countPets, listPets } from '../../src/pets/rules.js';
export { stringifyJson } from '../../src/rest/kit/json.js';
export { pageOf } from '../../src/rest/kit/query.js';
