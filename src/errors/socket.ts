import { STATUS_CODES } from 'node:http';
import type { ContractError, ErrorHeaders } from './catalogue.js';
import { JSON_CONTENT_TYPE, restErrorAnswer } from './rest.js';

/**
 * A complete HTTP/1.1 response with `error` in the Error shape as its body, closing the connection:
 * for a socket no HTTP response object answers (a request Node's parser refused, a WebSocket
 * upgrade). Headers keep their usual spelling: `extra` (such as `Sec-WebSocket-Version`) after
 * those of the error's code.
 */
export function rawErrorAnswer(error: ContractError, extra: ErrorHeaders = {}): string {
  const { status, body } = restErrorAnswer(error);
  const headers = Object.entries({ ...error.headers, ...extra }).map(
    ([name, value]) => `${name}: ${value}\r\n`,
  );
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `Content-Type: ${JSON_CONTENT_TYPE}\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    headers.join('') +
    'Connection: close\r\n' +
    `\r\n${body}`
  );
}
