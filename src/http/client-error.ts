import { type Server, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { DomainError } from '../domain/errors.js';

/**
 * How long a socket whose request could not be parsed is kept open after the answer: long enough
 * for the client to read it. Meanwhile what it still sends is read and dropped, because closing a
 * socket with unread input sends a TCP reset, which can destroy the answer before it is read.
 */
const lingerMs = 2000;

/**
 * The answer to a request Node's HTTP parser refused, by Node's error code. Node's own answer is a
 * bare status line with no body; every error response here carries the Error shape.
 *
 * - Headers over Node's limit (16 KiB, request line included, so a long URL or query string lands
 *   here too) keep their HTTP status, 431, with their own code: no other code fits, because a
 *   code always comes with the same status and PAYLOAD_TOO_LARGE (413) is about the body.
 * - A request not received within Node's time limits (`headersTimeout`, set from
 *   HEADERS_TIMEOUT_MS, and `requestTimeout`) is the contract's TIMEOUT: the request ran past its
 *   time limit, so it carries TIMEOUT's 503 rather than HTTP's 408, for which the contract has no
 *   code.
 * - Anything else the parser rejects (a garbage request line, a bad header, conflicting lengths)
 *   is a malformed request.
 */
function answerFor(code: string | undefined): DomainError {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return new DomainError(
        'REQUEST_HEADERS_TOO_LARGE',
        'The request line and headers are too large (16 KiB at most); shorten the URL or the headers',
      );
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return new DomainError('PAYLOAD_TOO_LARGE', 'The chunk extensions of the body are too large');
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return new DomainError('TIMEOUT', 'The request was not received within the time limit');
    default:
      return new DomainError('MALFORMED_REQUEST', 'The request is not valid HTTP/1.1');
  }
}

/**
 * A complete HTTP/1.1 response with `error` in the Error shape as its body, closing the connection:
 * for a socket no HTTP response object answers (a request the parser refused, a WebSocket upgrade).
 */
export function rawErrorResponse(error: DomainError, headers: Record<string, string> = {}): string {
  const body = JSON.stringify(error.toBody());
  const { status } = error;
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Cache-Control: no-store\r\n' +
    extra.join('') +
    'Connection: close\r\n' +
    `\r\n${body}`
  );
}

/** A socket as Node's HTTP server holds it: with the response it is writing, if any. */
interface HttpSocket extends Socket {
  _httpMessage?: { writableFinished: boolean; once(event: 'finish', listener: () => void): void };
}

const answered = new WeakSet<Socket>();

/**
 * Answers the requests Node's HTTP parser rejects (or that time out before they are read) with a
 * proper response whose body is the Error shape, then closes the connection. A socket that is
 * already broken (reset by the client, a write after its end) is simply destroyed.
 */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException, socket: HttpSocket) => {
    // The parser reports every later chunk again; the first answer stands.
    if (answered.has(socket)) return;
    answered.add(socket);
    if (error.code === 'ECONNRESET' || error.code === 'EPIPE' || !socket.writable) {
      socket.destroy();
      return;
    }
    const refusal = answerFor(error.code);
    const answer = () => {
      if (!socket.writable) return socket.destroy();
      socket.end(rawErrorResponse(refusal));
      socket.resume();
      setTimeout(() => socket.destroy(), lingerMs).unref();
    };
    // A kept-alive connection may still be writing the answer to an earlier request (pipelined
    // in the same packet): answer after it, so that the responses stay in request order.
    const inFlight = socket._httpMessage;
    if (inFlight && !inFlight.writableFinished) inFlight.once('finish', answer);
    else answer();
  });
}
