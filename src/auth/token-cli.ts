/**
 * `npm run token -- [scope…] [--sub <subject>] [--ttl <seconds>]`: prints a bearer token signed
 * with the configured secret (AUTH_JWT_SECRET, else the development secret in ./data/). No scopes
 * means all of them. Bad input ends in one line on stderr and exit code 2, never a stack trace.
 */
import { fail, parseCommand, UsageError } from '../cli.js';
import { ConfigError, loadConfig, loadDotEnv } from '../config.js';
import { scopes } from '../domain/authorization.js';
import { readOrCreateDevSecret } from './dev-secret.js';
import { mintToken } from './tokens.js';

const command = {
  name: 'npm run token',
  synopsis: '[scope…] [--sub <subject>] [--ttl <seconds>]',
  help: `Prints a bearer token (HS256) signed with AUTH_JWT_SECRET, or with the development secret kept
in ./data/ when none is configured.

  scope…           any of: ${scopes.join(' ')} (none: all of them)
  --sub <subject>  the token's subject (default: developer)
  --ttl <seconds>  lifetime in whole seconds, 1 to 31536000 (default: 86400, one day)
  -h, --help       this text

Example: npm run -s token -- orders:read orders:write --sub alice --ttl 3600`,
  options: {
    sub: { type: 'string' as const, default: 'developer' },
    ttl: { type: 'string' as const, default: '86400' },
  },
  allowPositionals: true,
};

const MAX_TTL_SECONDS = 365 * 86400;

async function main(argv: string[]): Promise<void> {
  const { values, positionals } = parseCommand(command, argv);
  if (!/^\d+$/.test(values.ttl) || Number(values.ttl) < 1 || Number(values.ttl) > MAX_TTL_SECONDS) {
    throw new UsageError(
      `--ttl must be a whole number of seconds from 1 to ${MAX_TTL_SECONDS}, not "${values.ttl}"`,
    );
  }
  if (values.sub.trim() === '') throw new UsageError('--sub must not be empty');
  const unknown = positionals.filter((scope) => !(scopes as readonly string[]).includes(scope));
  if (unknown.length > 0) {
    throw new UsageError(`unknown scope(s): ${unknown.join(', ')}; scopes: ${scopes.join(' ')}`);
  }

  loadDotEnv();
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    throw new UsageError(error.message.replace(/\s*\n\s*/g, ' '));
  }
  if (config.auth.jwksUrl && !config.auth.jwtSecret) {
    throw new UsageError(
      'tokens for a JWKS setup come from its identity provider; this command signs HS256 only',
    );
  }
  const token = await mintToken(config.auth.jwtSecret ?? readOrCreateDevSecret(), {
    scopes: positionals.length > 0 ? positionals : scopes,
    subject: values.sub,
    expiresIn: Number(values.ttl),
    issuer: config.auth.issuer,
    audience: config.auth.audience,
  });
  process.stdout.write(`${token}\n`);
}

await main(process.argv.slice(2)).catch((error) => fail(command, error));
