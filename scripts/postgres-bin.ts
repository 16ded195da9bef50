// Where Debian put PostgreSQL's programs: the newest version installed (initdb, pg_dump, pg_restore, psql).
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The newest PostgreSQL binaries Debian installed that include `program` (the server's initdb unless told: a machine
 * with only the client package, as the image, has pg_dump and no initdb), or undefined.
 */
export function postgresBin(program = 'initdb'): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => existsSync(join(root, v, 'bin', program)))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}
