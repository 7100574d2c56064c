import { DomainError } from '../errors/catalogue.js';
import type { Viewer } from './context.js';

/** The OAuth-style scopes a token's `scope` claim can grant. */
export const scopes = [
  'pets:write',
  'orders:read',
  'orders:write',
  'inventory:write',
  // The usage report (GET /usage): which clients use which part of the API.
  'admin:read',
] as const;
export type Scope = (typeof scopes)[number];

/**
 * Lets the call through when the viewer holds `scope`. Anonymous callers get UNAUTHENTICATED (they
 * should send a token), authenticated ones without the scope get FORBIDDEN.
 */
export function requireScope(viewer: Viewer, scope: Scope): void {
  if (viewer.scopes.has(scope)) return;
  if (!viewer.authenticated) {
    throw new DomainError(
      'UNAUTHENTICATED',
      `This operation needs a bearer token with the ${scope} scope`,
    );
  }
  throw new DomainError(
    'FORBIDDEN',
    `The token does not grant the ${scope} scope this operation needs`,
  );
}
