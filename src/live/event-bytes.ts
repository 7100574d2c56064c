import type { ExecutionResult } from 'graphql';
import { type Warning, withWarnings } from '../warnings/graphql.js';
import { serialize } from './serialize.js';

const encoder = new TextEncoder();

/**
 * One event's result as every member of a fan-out group receives it, serialized once: its JSON,
 * its SSE message (encoded once, the same bytes written to every SSE member) and its graphql-ws
 * frames. A member's first event carries the operation's warnings (as Yoga's own stream would add
 * them: src/warnings/graphql.ts), so each form exists in two variants, each made at most once.
 */
export class EventBytes {
  readonly #payloads: (string | undefined)[] = [undefined, undefined];
  readonly #messages: (Uint8Array | undefined)[] = [undefined, undefined];

  constructor(
    readonly cursor: string,
    private readonly result: ExecutionResult,
    private readonly warnings: readonly Warning[] | undefined,
  ) {}

  /** The result's JSON (with the warnings on a member's first event). */
  payload(first: boolean): string {
    const variant = first && this.warnings ? 1 : 0;
    let payload = this.#payloads[variant];
    if (payload === undefined) {
      const result =
        variant === 1 ? withWarnings(this.result, this.warnings as Warning[]) : this.result;
      payload = serialize(result);
      this.#payloads[variant] = payload;
    }
    return payload;
  }

  /** The SSE message, with the event's cursor as its `id:` (src/live/sse.ts). */
  sse(first: boolean): Uint8Array {
    const variant = first && this.warnings ? 1 : 0;
    let message = this.#messages[variant];
    if (message === undefined) {
      message = encoder.encode(`event: next\nid: ${this.cursor}\ndata: ${this.payload(first)}\n\n`);
      this.#messages[variant] = message;
    }
    return message;
  }

  /**
   * The graphql-ws `next` frame of subscription `id`. Each member names its own subscription, so
   * the frame is built per member around the payload serialized once, from a fixed template
   * (`{"id":<id as JSON>,"type":"next","payload":<payload JSON>}`): nothing is parsed or cut out
   * of a serialized answer.
   */
  frame(id: string, first: boolean): string {
    return `{"id":${JSON.stringify(id)},"type":"next","payload":${this.payload(first)}}`;
  }
}
