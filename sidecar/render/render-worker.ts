// A worker thread of the render pool (render-pool.ts): the CPU work of a live answer, off the event loop that answers
// /health and every cached page. Each task returns the bytes and their compressed forms, ready to be kept.
import { workerData } from 'node:worker_threads';
import { gunzipSync } from 'node:zlib';
import Piscina from 'piscina';
import { compress, isCompressible, type Encoding } from '../../src/lib/compression.ts';
import { pageToMarkdown } from '../../src/lib/markdown.ts';
import type { LiveLocals } from '../../src/lib/live-content.ts';
import { loadAstroRenderer, type AstroRenderer } from './astro-renderer.ts';
import { qrSvg } from './qr.ts';
import type { OgCard } from '../../src/lib/og.ts';
import { completeLocals } from '../services/live-locals.ts';

export type RenderTask =
  | { kind: 'page'; path: string; locals: LiveLocals; type: string }
  | { kind: 'markdown'; html: Uint8Array; type: string }
  | { kind: 'qr'; text: string; dark?: string | undefined; type: string }
  | { kind: 'og'; card: OgCard; picture?: Uint8Array | undefined; type: string }
  | { kind: 'json-string'; text: Uint8Array; gzipped: boolean; type: string }
  | { kind: 'warm'; type: string };

/** A body and the compressed forms worth sending (none for a body too small or not text). */
export interface RenderedBytes {
  body: Uint8Array;
  forms: Partial<Record<Encoding, Uint8Array>>;
  /** A page's: when what it shows next changes by itself (a place opening or closing), ms; absent: never. */
  freshUntil?: number;
  /** A themed page's: the CSP source (`'sha256-…'`) of the owner's stylesheet in it, which its answer must allow. */
  styleHashes?: string[];
}

const { serverEntry } = workerData as { serverEntry: string };
/** Astro's renderer, loaded on the first page this thread renders (a sidecar that renders nothing never loads it). */
let renderer: Promise<AstroRenderer> | undefined;
let drawing: Promise<typeof import('../../src/lib/og-draw.ts')> | undefined;

export default async function run(task: RenderTask): Promise<RenderedBytes> {
  // A place's hours are read here, at the moment of the answer, off the event loop (a long rule takes milliseconds to
  // parse): the page shows them, and the answer is kept no longer than their next change.
  const { freshUntil, styleHash } = task.kind === 'page' ? completeLocals(task.locals) : {};
  const body = await bodyOf(task);
  const forms: RenderedBytes['forms'] = {};
  // Brotli here, which browsers and the edge take: making gzip too, for every render, was a third of a render's cost;
  // the few clients that take only gzip get it made once on first use (asset.ts).
  if (isCompressible(task.type, body.length)) forms.br = own(compress(body, 'br'));
  const result: RenderedBytes = {
    body: own(body),
    forms,
    ...(freshUntil === undefined ? {} : { freshUntil }),
    ...(styleHash ? { styleHashes: [styleHash] } : {}),
  };
  // The bytes move to the main thread instead of being copied.
  const buffers = [result.body, ...Object.values(forms)].map((bytes) => bytes.buffer);
  return Piscina.move({
    [Piscina.transferableSymbol]: buffers,
    [Piscina.valueSymbol]: result,
  } as never) as unknown as RenderedBytes;
}

async function bodyOf(task: RenderTask): Promise<Buffer> {
  switch (task.kind) {
    case 'page':
      renderer ??= loadAstroRenderer(serverEntry);
      return (await renderer).render(task.path, task.locals);
    case 'markdown':
      return Buffer.from(
        pageToMarkdown(Buffer.from(task.html.buffer, task.html.byteOffset, task.html.byteLength).toString('utf8')),
      );
    case 'qr':
      return Buffer.from(await qrSvg(task.text, task.dark));
    // The drawing code (CanvasKit, sharp and the fonts) loads on the first picture this thread draws: a thread that
    // draws none never carries it.
    case 'og':
      drawing ??= import('../../src/lib/og-draw.ts');
      return (await drawing).drawOgImage(task.card, task.picture);
    case 'warm':
      renderer ??= loadAstroRenderer(serverEntry);
      await renderer;
      return Buffer.alloc(0);
    case 'json-string': {
      const bytes = Buffer.from(task.text.buffer, task.text.byteOffset, task.text.byteLength);
      return Buffer.from(JSON.stringify((task.gzipped ? gunzipSync(bytes) : bytes).toString('utf8')));
    }
  }
}

/**
 * The bytes in memory of their own, so that moving them detaches nothing else: a small Buffer is often a slice of
 * Node's shared pool, which the thread goes on using.
 */
function own(bytes: Buffer): Uint8Array {
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  return copy;
}
