import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { classifyParserError } from '../errors/classify.js';
import { rawErrorAnswer } from '../errors/socket.js';

/**
 * How long a socket whose request could not be parsed is kept open after the answer: long enough
 * for the client to read it. Meanwhile what it still sends is read and dropped, because closing a
 * socket with unread input sends a TCP reset, which can destroy the answer before it is read.
 */
const lingerMs = 2000;

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
    const refusal = classifyParserError(error.code);
    const answer = () => {
      if (!socket.writable) return socket.destroy();
      socket.end(rawErrorAnswer(refusal));
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
