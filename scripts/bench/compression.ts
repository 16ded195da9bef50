// `npm run bench -- --compression [--duration S]`: the cached rows with no Accept-Encoding, a browser's and gzip
// alone, and the bytes each saves. Writes docs/benchmarks/compression.md.
import { writeRecord } from './records.ts';
import { cpus } from 'node:os';
import { loadConfig } from '../../sidecar/config.ts';
import { ensureBuildSync } from '../ensure-build.ts';
import { baseEnv, demoDatabase, scratch, startSidecar } from './harness.ts';
import { fmt } from './numbers.ts';
import { wrk, type WrkResult } from './wrk.ts';

/**
 * What compression costs and saves on the cached rows: each row with no Accept-Encoding (as the other rows run), with
 * a browser's (`gzip, deflate, br, zstd`: brotli) and with gzip alone; the bytes of one answer in each coding.
 */
export async function compressionBench(seconds: number): Promise<void> {
  const config = loadConfig({});
  ensureBuildSync(config, baseEnv({}));
  const sidecar = await startSidecar(await demoDatabase());
  const article = '/en/blog/qr-or-nfc-business-card';
  const cases: [string, string, Record<string, string>][] = [
    ['Static HTML page', article, {}],
    ['Its Markdown twin', article, { accept: 'text/markdown' }],
    ['Live profile, cached', '/p/layla', {}],
    ['Live card, cached', '/c/k7f2q9', {}],
    ['Live QR code, cached', '/c/k7f2q9/qr.svg', {}],
  ];
  const codings: [string, Record<string, string>][] = [
    ['none', {}],
    ['browser (br)', { 'accept-encoding': 'gzip, deflate, br, zstd' }],
    ['gzip', { 'accept-encoding': 'gzip' }],
  ];
  const bytes = async (path: string, headers: Record<string, string>) => {
    const { request } = await import('node:http');
    const url = new URL(sidecar.url + path);
    return new Promise<number>((resolve, reject) => {
      const req = request({ host: url.hostname, port: url.port, path, headers }, (res) => {
        let n = 0;
        res.on('data', (c: Buffer) => (n += c.length));
        res.on('end', () => resolve(n));
      });
      req.on('error', reject);
      req.end();
    });
  };
  const lines = [
    '# Compression',
    '',
    `Produced by \`npm run bench -- --compression --duration ${seconds}\` on ${new Date().toISOString().slice(0, 10)}: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, Node ${process.version}, wrk -t2 -c50 -d${seconds}s. One sidecar (\`npm run serve\`), cached answers: static files from the build's brotli and gzip copies, live pages compressed once when first asked for in a coding and kept with the page in the live cache.`,
    '',
    '| Row | Accept-Encoding | req/s | p99 ms | bytes per answer | saved | rate against no Accept-Encoding |',
    '|---|---|---:|---:|---:|---:|---:|',
  ];
  for (const [name, path, headers] of cases) {
    const results: { coding: string; result: WrkResult; size: number }[] = [];
    for (const [coding, extra] of codings) {
      const all = { ...headers, ...extra };
      await wrk(sidecar.url + path, { headers: all, seconds: 2 }, scratch);
      results.push({
        coding,
        result: await wrk(sidecar.url + path, { headers: all, seconds: seconds }, scratch),
        size: await bytes(path, all),
      });
    }
    const plain = results[0]!;
    for (const { coding, result, size } of results) {
      lines.push(
        `| ${name} | ${coding} | ${fmt(result.rps)} | ${fmt(result.p99, 2)} | ${fmt(size)} | ${fmt((1 - size / plain.size) * 100)}% | ${fmt(result.rps / plain.result.rps, 2)}× |`,
      );
      console.log(`${name}, ${coding}: ${fmt(result.rps)} req/s, ${fmt(size)} bytes`);
    }
  }
  writeRecord('compression.md', lines.join('\n') + '\n');
  console.log('\n' + lines.join('\n'));
}
