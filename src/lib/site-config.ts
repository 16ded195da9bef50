// What pages embed: the public part of the configuration (BASE_URL, SERVICE_NAME, CONTACT_EMAIL), read from the
// environment by the Astro build and, as part of its own configuration, by the sidecar (sidecar/config.ts), which
// refuses to serve a build made for other values. Validated by one schema, each error naming its variable.
import { z } from 'zod';

// The languages are declared in locales.ts; re-exported for the pages that read them here.
export { DEFAULT_LANG, LANGS, type Lang } from './locales.ts';

export interface PublicConfig {
  /** Public origin without a trailing slash, e.g. https://example.com */
  baseUrl: string;
  serviceName: string;
  contactEmail: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

type Env = Record<string, string | undefined>;

const EMAIL = /^[^\s@<>"]+@(?:[^\s@<>".]+\.)+[^\s@<>".]+$/;

/** An http(s) origin with no path, query or credentials, normalised (lower-case host, no trailing slash). */
function origin(raw: string): string | undefined {
  try {
    const u = new URL(raw);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return undefined;
    if (u.pathname !== '/' || u.search || u.hash || u.username || u.password) return undefined;
    return u.origin;
  } catch {
    return undefined;
  }
}

/** The public variables by name, with their defaults (BASE_URL's follows PORT: parsePublicConfig resolves it). */
export const publicConfigSchema = z
  .object({
    BASE_URL: z
      .string()
      .trim()
      .transform(
        (raw, ctx) =>
          origin(raw) ??
          (ctx.addIssue({
            code: 'custom',
            message: 'must be an http(s) origin such as https://example.com, with no path, query or credentials',
          }),
          z.NEVER),
      ),
    SERVICE_NAME: z
      .string()
      .trim()
      .default('Bio Cards')
      .transform((raw) => raw || 'Bio Cards')
      .pipe(z.string().max(60, 'must be at most 60 characters')),
    CONTACT_EMAIL: z
      .string()
      .trim()
      .default('agents@example.com')
      .transform((raw) => raw || 'agents@example.com')
      .pipe(z.string().regex(EMAIL, 'must be an e-mail address')),
  })
  .transform((v): PublicConfig => ({
    baseUrl: v.BASE_URL,
    serviceName: v.SERVICE_NAME,
    contactEmail: v.CONTACT_EMAIL,
  }));

/** The port a server listens on unless PORT says otherwise (sidecar/config.ts reads PORT). */
export const DEFAULT_PORT = 8080;

/** The default origin follows PORT: http://localhost:$PORT, PORT's own default DEFAULT_PORT. */
export function parsePublicConfig(env: Env) {
  return publicConfigSchema.safeParse({
    ...env,
    BASE_URL: env.BASE_URL?.trim() || `http://localhost:${env.PORT?.trim() || DEFAULT_PORT}`,
  });
}

/** The one message of a configuration that does not parse: every bad variable, what it must be, and its value. */
export function configError(
  issues: readonly { path: readonly PropertyKey[]; message: string }[],
  env: Env,
): ConfigError {
  const problems = issues.map((issue) => {
    const name = String(issue.path[0]);
    return `${name} ${issue.message} (got "${env[name] ?? ''}")`;
  });
  return new ConfigError(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
}

/** The public configuration for the build; throws ConfigError naming every bad variable. */
export function loadPublicConfig(env: Env = process.env): PublicConfig {
  const result = parsePublicConfig(env);
  if (result.success) return result.data;
  throw configError(result.error.issues, env);
}
