/**
 * Why the server could not listen on `host`:`port`, as one line saying what to do (Node's own
 * report is a stack trace naming a syscall).
 */
export function listenFailure(error: unknown, host: string, port: number): string {
  const { code, message } = error as { code?: string; message?: string };
  switch (code) {
    case 'EADDRINUSE':
      return (
        // No port is named: the next one may be just as busy (another replica, a second run).
        `Port ${port} on ${host} is already in use (another gateway still running?): stop that ` +
        'process, or set PORT to a port nothing listens on'
      );
    case 'EADDRNOTAVAIL':
      return (
        `HOST ${host} is not an address of this machine: set HOST to one of its addresses ` +
        '(127.0.0.1 for this machine only, 0.0.0.0 for every network interface)'
      );
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return (
        `HOST ${host} does not resolve to an address (${code}): set HOST to an address of this ` +
        'machine, e.g. 127.0.0.1, or a name that resolves to one'
      );
    case 'EACCES':
      return `Port ${port} needs privileges this user does not have: set PORT to 1024 or above`;
    default:
      return `Cannot listen on ${host}:${port} (${code ?? message}): check HOST and PORT`;
  }
}
