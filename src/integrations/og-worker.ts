// A worker of the Open Graph step: draws its share of the images and writes each to the build and to the cache.
import { copyFileSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import type { OgCard } from '../lib/og.ts';
import { drawOgImage } from './og-draw.ts';
import { tmpName } from './build-cache.ts';

export interface OgJob {
  jobs: { card: OgCard; out: string; cached: string }[];
}

const { jobs } = workerData as OgJob;
try {
  for (const { card, out, cached } of jobs) {
    const png = await drawOgImage(card);
    mkdirSync(dirname(cached), { recursive: true });
    const tmp = tmpName(cached);
    writeFileSync(tmp, png);
    copyFileSync(tmp, out);
    // Renamed last, so a build stopped half-way never leaves a partial image under a real name.
    renameSync(tmp, cached);
  }
  parentPort?.postMessage({ ok: true });
} catch (err) {
  parentPort?.postMessage({ ok: false, message: (err as Error).stack ?? String(err) });
}
