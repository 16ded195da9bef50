// External validators run as real processes: xmllint with the sitemaps.org and RSS 2.0 schemas, and the Nu HTML
// checker (Java). Used by the tests and by `npm run check:build`.
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from './ensure-build.ts';

/** `check` run with a new folder of its own, which is removed after it (a run of the suites made hundreds). */
function inFolder<T>(prefix: string, check: (dir: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  try {
    return check(dir);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Validates a sitemap (urlset) with xmllint against sitemaps.org's XSD plus a schema for xhtml:link. */
export function xmllintSitemap(xml: string): { ok: boolean; output: string } {
  return inFolder('sitemap-xsd-', (dir) => {
    const schema = join(dir, 'sitemap-with-xhtml.xsd');
    writeFileSync(
      schema,
      `<?xml version="1.0"?>
<xsd:schema xmlns:xsd="http://www.w3.org/2001/XMLSchema">
  <xsd:import namespace="http://www.sitemaps.org/schemas/sitemap/0.9" schemaLocation="${join(projectRoot, 'node_modules/sitemap/schema/sitemap.xsd')}"/>
  <xsd:import namespace="http://www.w3.org/1999/xhtml" schemaLocation="${join(projectRoot, 'scripts/schemas/xhtml-link.xsd')}"/>
</xsd:schema>`,
    );
    const file = join(dir, 'sitemap.xml');
    writeFileSync(file, xml);
    const result = spawnSync('xmllint', ['--noout', '--nonet', '--schema', schema, file], { encoding: 'utf8' });
    return { ok: result.status === 0, output: result.stdout + result.stderr };
  });
}

export interface VnuMessage {
  type: string;
  subType?: string;
  url: string;
  message: string;
  lastLine?: number;
}

/** Validates an RSS 2.0 feed with xmllint against scripts/schemas/rss-2.0.xsd (written from the RSS 2.0 specification). */
export function xmllintRss(xml: string): { ok: boolean; output: string } {
  return inFolder('rss-', (dir) => {
    const file = join(dir, 'rss.xml');
    writeFileSync(file, xml);
    const result = spawnSync(
      'xmllint',
      ['--noout', '--nonet', '--schema', join(projectRoot, 'scripts/schemas/rss-2.0.xsd'), file],
      { encoding: 'utf8' },
    );
    return { ok: result.status === 0, output: result.stdout + result.stderr };
  });
}

/** The Nu HTML Checker over files, one Java process per core, each with its share: the checker runs mostly on one. */
export async function vnuParallel(files: string[]): Promise<VnuMessage[]> {
  if (files.length === 0) return [];
  const jar = join(projectRoot, 'node_modules/vnu-jar/build/dist/vnu.jar');
  const processes = Math.min(availableParallelism(), Math.ceil(files.length / 100));
  const shares = Array.from({ length: processes }, (_, i) => files.filter((_, k) => k % processes === i));
  const outputs = await Promise.all(
    shares.map(
      (share) =>
        new Promise<string>((resolve, reject) => {
          const child = spawn('java', ['-jar', jar, '--format', 'json', '--stdout', ...share], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          const chunks: Buffer[] = [];
          child.stdout.on('data', (c: Buffer) => chunks.push(c));
          child.once('error', reject);
          child.once('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
        }),
    ),
  );
  return outputs.flatMap((out) => (JSON.parse(out || '{"messages":[]}') as { messages: VnuMessage[] }).messages);
}
