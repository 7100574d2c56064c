/**
 * `npm run token -- <scope…>`: prints a bearer token signed with the configured secret
 * (AUTH_JWT_SECRET, else the development secret in ./data/). No scopes means all of them.
 * Options: --sub <subject>, --ttl <seconds>.
 */
import { parseArgs } from 'node:util';
import { loadConfig, loadDotEnv } from '../config.js';
import { scopes } from '../domain/authorization.js';
import { readOrCreateDevSecret } from './dev-secret.js';
import { mintToken } from './tokens.js';

loadDotEnv();
const config = loadConfig();
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    sub: { type: 'string', default: 'developer' },
    ttl: { type: 'string', default: '86400' },
  },
});
if (config.auth.jwksUrl && !config.auth.jwtSecret) {
  console.error(
    'Tokens for a JWKS setup come from its identity provider; this script signs HS256 only.',
  );
  process.exit(2);
}
const unknown = positionals.filter((scope) => !(scopes as readonly string[]).includes(scope));
if (unknown.length > 0) {
  console.error(`Unknown scope(s): ${unknown.join(', ')}. Scopes: ${scopes.join(' ')}`);
  process.exit(2);
}
const token = await mintToken(config.auth.jwtSecret ?? readOrCreateDevSecret(), {
  scopes: positionals.length > 0 ? positionals : scopes,
  subject: values.sub,
  expiresIn: Number(values.ttl),
  issuer: config.auth.issuer,
  audience: config.auth.audience,
});
console.log(token);
