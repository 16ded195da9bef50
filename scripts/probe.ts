// `bin/probe PATH` in a release (#50): asks this machine's server for PATH (`/health`, `/livez`) on PORT and exits 0
// when it answers 2xx within two seconds, 1 otherwise: a container's HEALTHCHECK or an exec probe, with no curl.
import { pathOf } from '../src/lib/surface.ts';

const path = process.argv[2] ?? pathOf('getLiveness');
const port = process.env.PORT || '8080';
try {
  const answer = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(2000) });
  await answer.arrayBuffer();
  process.exit(answer.ok ? 0 : 1);
} catch {
  process.exit(1);
}
