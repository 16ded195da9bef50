// `npm run switch-build -- NEW_BUILD [--link LINK]` (#50): points the link the services serve from (DIST_DIR, e.g.
// /srv/bio/current) at another build, in one step: a new link made beside it and renamed over it, so that every
// reader of the path (nginx, at each request; a sidecar, when it starts) sees the old build or the new one, never a
// mixture or nothing. Before it moves:
//   - the new build must have been made for this configuration's BASE_URL (and name, and contact), and sit inside the
//     installation (where its server code finds the packages), as a sidecar checks;
//   - the previous build's fingerprinted files (/_astro/…, the search index's fragments) are copied into the new one
//     where it has no file of that name, so that a page made by the previous build (a sidecar not yet restarted, an
//     edge's or a browser's copy) still finds its styles and scripts. Only the previous build's own files are carried,
//     not those it carried itself (carried.json lists them), so nothing piles up over switches.
// Then the sidecars are restarted one at a time and the front reloaded (docs/operations.md, "Switching builds").
import { copyFileSync, existsSync, lstatSync, mkdirSync, readFileSync, realpathSync, renameSync } from 'node:fs';
import { rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { commandLine } from './command-line.ts';
import { manifestMismatch, readManifest } from '../src/lib/build-manifest.ts';
import { filesUnder } from '../src/lib/files.ts';
import type { PublicConfig } from '../src/lib/site-config.ts';
import { isFingerprinted } from '../src/lib/surface.ts';
import { loadConfigOrExit } from '../sidecar/config.ts';
import { buildOutsideInstallation } from '../sidecar/served-build.ts';

/** The list, in a build's folder, of the files a switch carried into it from the build before. */
const CARRIED = 'carried.json';

export class SwitchError extends Error {
  override name = 'SwitchError';
}

function carriedInto(build: string): Set<string> {
  try {
    return new Set(JSON.parse(readFileSync(join(build, CARRIED), 'utf8')) as string[]);
  } catch {
    return new Set();
  }
}

/** Copies the previous build's own fingerprinted files that `next` lacks into it; returns how many. */
function carryAssets(previous: string, next: string): number {
  const carriedBefore = carriedInto(previous);
  const present = new Set(filesUnder(join(next, 'client')));
  const carried = [...carriedInto(next)];
  for (const file of filesUnder(join(previous, 'client'))) {
    if (!isFingerprinted(`/${file}`) || present.has(file) || carriedBefore.has(file)) continue;
    mkdirSync(dirname(join(next, 'client', file)), { recursive: true });
    copyFileSync(join(previous, 'client', file), join(next, 'client', file));
    carried.push(file);
  }
  writeFileSync(join(next, CARRIED), JSON.stringify(carried));
  return carried.length;
}

/**
 * Points `link` at `build` (both paths; `link` a symbolic link or nothing yet). Throws SwitchError, having changed
 * nothing, when the build is not one for `config` or `link` is a real folder.
 */
export function switchBuild(config: PublicConfig, build: string, link: string): { previous?: string; carried: number } {
  const next = realpathSync(resolve(build));
  const problem = buildOutsideInstallation(next) ?? manifestMismatch(readManifest(next), config);
  if (problem) throw new SwitchError(`${build} cannot be served: ${problem}`);
  let previous: string | undefined;
  if (lstatExists(link)) {
    if (!lstatSync(link).isSymbolicLink())
      throw new SwitchError(`${link} is a folder, not a link: move it aside and link ${link} to it first`);
    previous = existsSync(link) ? realpathSync(link) : undefined;
  }
  const carried = previous && previous !== next ? carryAssets(previous, next) : 0;
  const beside = `${link}.next-${process.pid}`;
  rmSync(beside, { force: true });
  symlinkSync(next, beside);
  renameSync(beside, link);
  return { ...(previous ? { previous } : {}), carried };
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

const USAGE = 'Usage: DIST_DIR=/srv/bio/current npm run switch-build -- NEW_BUILD   (or --link LINK)';

if (import.meta.main) {
  const { values, positionals } = commandLine(USAGE, {
    allowPositionals: true,
    options: { link: { type: 'string' } },
  });
  const config = loadConfigOrExit();
  const link = values.link ?? config.distDir;
  if (positionals.length !== 1 || !link) {
    console.error(USAGE);
    process.exit(2);
  }
  try {
    const { previous, carried } = switchBuild(config, positionals[0]!, resolve(link));
    console.log(
      `${link} → ${realpathSync(link)}${previous ? ` (was ${previous}; ${carried} of its fingerprinted files kept)` : ''}.\n` +
        'Now restart the sidecars one at a time, reload the front (npm run front -- config …, bin/front config … in a release; nginx -s reload) and purge ' +
        'the edges\' live pages (PURGE with xkey-purge: live): docs/operations.md, "Switching builds".',
    );
  } catch (err) {
    if (!(err instanceof SwitchError)) throw err;
    console.error(`${err.message}. Nothing changed.`);
    process.exit(1);
  }
}
