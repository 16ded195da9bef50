// Which build a sidecar serves (#50): DIST_DIR, a link followed once at start, or the installation's own dist/; and
// whether a build can run from where it sits. The server and `npm run switch-build` judge a build alike.
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The installation: this checkout, or a release folder. */
const installation = fileURLToPath(new URL('..', import.meta.url));

/** The build this process serves: DIST_DIR (its link resolved) or the project's dist/. */
export function servedBuild(config: { distDir: string | undefined }): string {
  const dir = config.distDir ?? join(installation, 'dist');
  try {
    return realpathSync(dir);
  } catch {
    return dir;
  }
}

/**
 * Why a build cannot run here, if it cannot: its server code imports the installation's packages, which Node finds
 * only from a folder inside the installation (this checkout, or the release folder).
 */
export function buildOutsideInstallation(build: string): string | undefined {
  const inside = relative(installation, build);
  if (inside && !inside.startsWith('..') && !isAbsolute(inside)) return undefined;
  return `the build ${build} is outside ${installation}, where its server code cannot find the packages it imports: put builds under it (e.g. ${join(installation, 'builds', 'NAME')})`;
}
