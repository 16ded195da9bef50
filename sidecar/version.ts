// The version this server runs: package.json's, which a release raises and CHANGELOG.md describes. Read once at start;
// operators see it at /livez and as the `bio_build_info` metric (#50), never in /health, whose fields the spec fixes.
import { readFileSync } from 'node:fs';

export const SERVICE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
