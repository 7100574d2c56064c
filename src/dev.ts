import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { parseCommand } from './cli.js';

// `npm run dev`: its own --help, then the server from the sources under `tsx watch` (which would
// otherwise take --help for the server, print it, and go on watching).
parseCommand({
  name: 'npm run dev',
  synopsis: '',
  help: `Serves the gateway from the TypeScript sources (tsx watch), restarted whenever a file changes.
It reads the same configuration as npm start (npm start -- --help lists the main variables; every
one is in .env.example) and prints the development token at each start.`,
});

const tsx = createRequire(import.meta.url).resolve('tsx/cli');
const server = fileURLToPath(new URL('./server.ts', import.meta.url));
const child = spawn(process.execPath, [tsx, 'watch', server], { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => child.kill(signal));
}
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
