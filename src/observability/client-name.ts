import type { ClientNameLimits } from '../config.js';
import type { ClientName } from '../http/env.js';
import { BoundedLabel } from './bounded-label.js';

/** A request that names no client. */
export const UNKNOWN_CLIENT: ClientName = Object.freeze({ name: 'unknown', version: 'unknown' });

/** Where a client names itself: the GraphQL-over-HTTP community's headers, then Apollo Client's. */
const NAME_HEADERS = ['graphql-client-name', 'apollographql-client-name'] as const;
const VERSION_HEADERS = ['graphql-client-version', 'apollographql-client-version'] as const;

/** Reads one request header; undefined or null when it is absent. */
export type HeaderReader = (name: string) => string | null | undefined;

const first = (header: HeaderReader, names: readonly string[]) => {
  for (const name of names) {
    const value = header(name);
    if (value) return value;
  }
  return undefined;
};

/** Label values and log fields carry printable ASCII only: nothing can colour a terminal. */
const printable = (value: string | undefined) => value?.replace(/[^\x20-\x7e]/g, '?');

/**
 * Turns the client name and version a request sends into bounded values, the same for the access
 * log, the traces, the request metrics and the usage counts: at most `maxNames` names and
 * `maxVersionsPerName` versions of each (cut at 64 characters) are kept, later ones are `other`
 * until the process restarts, and a request naming no client is `unknown`. The names operators
 * list (`listed`) are kept from the start; a caller without a valid token takes a new name only
 * while callers like it have taken fewer than `anonymousNames`, so that anonymous requests cannot
 * squat the names that callers with tokens need. One object per kept pair, so that a request
 * allocates nothing.
 */
export class ClientNames {
  readonly #names: BoundedLabel;
  readonly #versions = new Map<string, BoundedLabel>();
  readonly #clients = new Map<string, Map<string, ClientName>>();
  #anonymousTaken = 0;

  constructor(private readonly limits: ClientNameLimits) {
    this.#names = new BoundedLabel(limits.maxNames, 64, limits.listed);
  }

  readonly #anonymousMayAdd = () => {
    if (this.#anonymousTaken >= this.limits.anonymousNames) return false;
    this.#anonymousTaken++;
    return true;
  };

  /** The client a request names; `authenticated`: it carries a valid token. */
  of(header: HeaderReader, authenticated: boolean): ClientName {
    const raw = first(header, NAME_HEADERS);
    if (raw === undefined) return UNKNOWN_CLIENT;
    const mayAdd = authenticated ? undefined : this.#anonymousMayAdd;
    const name = this.#names.value(printable(raw), 'unknown', mayAdd);
    if (name === 'unknown') return UNKNOWN_CLIENT;
    let versions = this.#versions.get(name);
    if (!versions) {
      versions = new BoundedLabel(name === 'other' ? 0 : this.limits.maxVersionsPerName);
      this.#versions.set(name, versions);
    }
    const version = versions.value(printable(first(header, VERSION_HEADERS)));
    let byVersion = this.#clients.get(name);
    if (!byVersion) {
      byVersion = new Map();
      this.#clients.set(name, byVersion);
    }
    let client = byVersion.get(version);
    if (!client) {
      client = Object.freeze({ name, version });
      byVersion.set(version, client);
    }
    return client;
  }
}
