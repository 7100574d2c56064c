import { type ParseArgsConfig, parseArgs } from 'node:util';

/** A mistake in a command line or its configuration: one line on stderr and exit code 2. */
export class UsageError extends Error {}

export interface Command<Options extends NonNullable<ParseArgsConfig['options']>> {
  /** How the command is run, e.g. `npm run db:seed`: the usage line and error lines name it. */
  name: string;
  /** `[--pets N]`: what follows the name in the usage line. */
  synopsis: string;
  /** What the command does, and its options, one per line: the rest of `--help`. */
  help: string;
  options?: Options;
  allowPositionals?: boolean;
}

/**
 * The arguments of a command-line entry point. Every command answers `--help` (or `-h`) with its
 * usage on stdout and exit code 0, before anything else happens (no database is opened); an
 * unknown option or a missing value is one line on stderr and exit code 2, never a stack trace.
 */
export function parseCommand<Options extends NonNullable<ParseArgsConfig['options']>>(
  command: Command<Options>,
  argv: string[] = process.argv.slice(2),
) {
  let parsed: ReturnType<typeof parseArgs<{ options: Options; allowPositionals: boolean }>>;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: command.allowPositionals ?? false,
      strict: true,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } } as unknown as Options,
    });
  } catch (error) {
    // parseArgs explains the problem well ("Unknown option '--x'"); keep only that sentence.
    const [sentence = 'invalid arguments'] = (error as Error).message.split(/\.\s|\n/);
    fail(command, new UsageError(sentence));
  }
  if ((parsed.values as { help?: boolean }).help) {
    process.stdout.write(`Usage: ${usageLine(command)}\n\n${command.help.trim()}\n`);
    process.exit(0);
  }
  return parsed;
}

/** Runs a command's work; whatever it throws ends the command in one line (see `fail`). */
export async function attempt<T>(command: { name: string }, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    fail(command, error);
  }
}

/** Ends the command with one line on stderr: exit code 2 for a usage error, else 1. */
export function fail(command: { name: string }, error: unknown): never {
  const message = error instanceof Error ? error.message : String(error);
  // `token: …`, `db:seed: …`, `start: …`: the script's name, as npm users know it.
  const script = command.name.split(' ').at(-1);
  process.stderr.write(`${script}: ${message} (see ${helpOf(command.name)})\n`);
  process.exit(error instanceof UsageError ? 2 : 1);
}

/** An npm script (`npm start` too) takes its arguments after `--`: before it, they are npm's. */
const argumentsOf = (name: string) => (name.startsWith('npm ') ? `${name} --` : name);

function usageLine({ name, synopsis }: { name: string; synopsis: string }): string {
  return synopsis ? `${argumentsOf(name)} ${synopsis}` : name;
}

function helpOf(name: string): string {
  return `${argumentsOf(name)} --help`;
}
