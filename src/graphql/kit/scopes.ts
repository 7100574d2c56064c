import type { Scope } from '../../domain/authorization.js';

/**
 * Declares the scope a field needs, as its `extensions.scope`: what reads the schema finds it there
 * (a replayed mutation's check, the scopes of its plan, src/graphql/plan/facts.ts). The field's resolver or the domain
 * function it calls enforces it; test/graphql/scopes.test.ts holds the two to the same scope.
 */
export const needs = (scope: Scope) => ({ extensions: { scope } }) as const;
