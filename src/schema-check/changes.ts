/** How much a change can hurt a client that was written against the base. */
export type Level = 'breaking' | 'dangerous' | 'safe';

/** One difference between the base's published interface and the working tree's. */
export interface SchemaChange {
  api: 'graphql' | 'rest';
  level: Level;
  /** The diff library's name for it (`FIELD_REMOVED`, `remove`…). */
  kind: string;
  /** Where: a schema coordinate, or an operation (`GET /pets/{petId}`) and what in it. */
  location: string;
  message: string;
  /**
   * What usage would show a client depending on it: schema coordinates, or REST operation ids.
   * Empty when the change cannot be tied to usage (it is never allowed when breaking).
   */
  usageKeys: string[];
  /** Whether everything it removes or changes was deprecated in the base. */
  deprecatedInBase: boolean;
}
