// The installation's folder: this checkout, or a release folder (scripts/release.ts). On its own, so that what needs
// only the folder (the front's and the edge's configuration) does not import what builds (ensure-build.ts names
// astro's command, and a release traces every import: issue 61).
import { fileURLToPath } from 'node:url';

export const projectRoot = fileURLToPath(new URL('..', import.meta.url));
