import { AsyncLocalStorage } from 'node:async_hooks';

/** The request being served, for code that has no handle on it (the logger, the error masker). */
export const requestContext = new AsyncLocalStorage<{ readonly requestId: string }>();
