/**
 * Every piece of the product the framework floor uses, in one place: the floor's servers import
 * the product only through this file, so a module that moves in src/ is fixed here alone.
 */
// What the product's server sets about V8 before Prisma's client loads: the floors run as it does.
import '../../src/runtime/wasm-baseline-tier.js';

export { loadConfig } from '../../src/config.js';
export { type Database, openDatabase } from '../../src/db/client.js';
export { createSharedReads, type SharedReads } from '../../src/db/shared-reads.js';
export { readOnly } from '../../src/domain/changes.js';
export { anonymous } from '../../src/domain/context.js';
export { parseId } from '../../src/domain/ids.js';
export { countPets, listPets } from '../../src/domain/pets.js';
export { compiledQueries } from '../../src/graphql/compiled-queries.js';
export { createContext, type GraphQLContext } from '../../src/graphql/context.js';
export { ListItemBudget } from '../../src/graphql/list-items.js';
export { schema } from '../../src/graphql/schema/index.js';
export { Subscriptions } from '../../src/graphql/subscriptions.js';
export { databaseLimitMs } from '../../src/http/time-limit.js';
export { stringifyJson } from '../../src/rest/json.js';
export { pageOf } from '../../src/rest/query.js';
export { presentPet } from '../../src/rest/respond.js';
