/** The `after` argument of every subscription field. */
export const afterDescription =
  "Resume after this event cursor (an earlier event's `cursor`, or its `extensions.cursor`): every matching event committed since then comes first, in order, then the live ones. A cursor older than the events kept fails with EVENT_CURSOR_EXPIRED (410). Over SSE, `Last-Event-ID` wins over it.";

/** The `cursor` field of an event type. */
export const cursorDescription =
  "This event's cursor (also in `extensions.cursor`, and the SSE `id`): subscribe again with `after` set to it to continue where this left off.";
