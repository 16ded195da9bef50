// Build step: a Markdown twin beside every HTML page, then the build manifest the sidecar checks at start.
import type { AstroIntegration } from 'astro';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { pageToMarkdown } from '../lib/markdown.ts';
import type { SiteConfig } from '../lib/site-config.ts';
import { buildFingerprint, MANIFEST_FILE, type BuildManifest } from '../lib/build-manifest.ts';

async function* htmlFiles(dir: string): AsyncGenerator<string> {
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) yield* htmlFiles(full);
    else if (entry.name.endsWith('.html')) yield full;
  }
}

export default function markdownTwins(config: SiteConfig): AstroIntegration {
  let projectRoot = process.cwd();
  return {
    name: 'markdown-twins',
    hooks: {
      'astro:config:done': ({ config: astroConfig }) => {
        projectRoot = fileURLToPath(astroConfig.root);
      },
      'astro:build:done': async ({ dir, logger }) => {
        const root = fileURLToPath(dir);
        const started = performance.now();
        let count = 0;
        for await (const file of htmlFiles(root)) {
          const rel = relative(root, file);
          try {
            await writeFile(file.replace(/\.html$/, '.md'), pageToMarkdown(await readFile(file, 'utf8')));
          } catch (err) {
            throw new Error(`Markdown twin of ${rel} failed: ${(err as Error).message}`, { cause: err });
          }
          count++;
        }
        logger.info(`${count} Markdown twins in ${Math.round(performance.now() - started)} ms for ${config.baseUrl}`);

        const manifest: BuildManifest = {
          baseUrl: config.baseUrl,
          serviceName: config.serviceName,
          contactEmail: config.contactEmail,
          fingerprint: buildFingerprint(projectRoot, config),
          builtAt: new Date().toISOString(),
        };
        await writeFile(join(root, '..', MANIFEST_FILE), JSON.stringify(manifest, null, 2) + '\n');
      },
    },
  };
}
