// The sitemap: the static pages' entries from the build plus every published profile and active page-mode card.
// Past 50,000 URLs /sitemap.xml is an index of /sitemaps/{n}.xml. Like a live page, each document is built once per
// change of what it lists and then kept, compressed (a part of 50,000 URLs is 5 MB as it is, 0.2 MB in gzip), until
// the change log names a profile or card. Builds run one at a time, reading and writing in slices between which other
// requests are answered: sixteen crawlers asking for one part share one build, and a build never holds more than a
// slice of rows. Throws StoreUnavailableError when the database cannot be read: crawlers get a 503 and retry, never a
// partial list.
import { readFileSync } from 'node:fs';
import { once } from 'node:events';
import { Transform, type Readable } from 'node:stream';
import { createBrotliCompress, createGzip } from 'node:zlib';
import { SitemapIndexStream, SitemapStream } from 'sitemap';
import { zlibOptions } from '../../src/lib/compression.ts';
import { SITEMAP_XMLNS, type SitemapEntry } from '../../src/lib/sitemap.ts';
import { pathOf, CACHE } from '../../src/lib/surface.ts';
import { absoluteUrl, paths } from '../../src/lib/urls.ts';
import { LANGS, type Lang } from '../../src/lib/locales.ts';
import { compressedAsset, type Asset } from '../asset.ts';
import type { LivePage, LivePageKind, Store } from '../store/store.ts';
import type { Freshness } from './freshness.ts';
import type { Pressure } from '../admission/pressure.ts';
import { Overloaded } from '../admission/fair-slots.ts';

const SITEMAP_URL_LIMIT = 50_000;
const XML = 'application/xml';
/** Rows read from the store at once (a SQLite read of a millisecond or two; one trip to PostgreSQL). */
const SLICE = 500;
/**
 * The longest a build writes entries before it lets the event loop answer what is waiting. Counted in time, not in
 * entries: an entry costs the sitemap library 5 µs in one language and about 20 in two (each of its three alternates'
 * URLs parsed again), and a slice of 500 two-language profiles held the loop 10-20 ms at a time for the second or so
 * a part took to build, every reader's request waiting behind each (issue 60).
 */
const SLICE_MS = 2;

/**
 * Lets the event loop answer what is waiting (a macrotask: an `await` of a promise already settled, as SQLite's reads
 * are, is a microtask, and a loop of them never yields).
 */
const turn = () => new Promise<void>((resolve) => setImmediate(resolve));
/**
 * Compressed bytes of parts kept at most (the least recently asked for leaves first): a million profiles are twenty
 * parts of about 0.4 MB (gzip and brotli), so every part is kept far beyond that.
 */
const KEEP_BYTES = 64 * 1024 * 1024;

interface SitemapDeps {
  baseUrl: string;
  store: Store;
  freshness: Freshness;
  staticEntriesFile: string;
  limit?: number | undefined;
  /** Why no document should be built now (load shed), if anything. */
  pressure?: Pick<Pressure, 'refusal'> | undefined;
}

/**
 * One part of a sitemap index: a slice of the static entries, or `rows` live pages of a kind from a key on (at most
 * `limit` entries: a page in two languages is two).
 */
type Part = { kind: 'static'; entries: SitemapEntry[] } | { kind: LivePageKind; start: string; rows: number };

/** The index (or the whole list, when it fits in one) and the parts it names. */
interface Plan {
  index: Asset;
  parts: Part[];
}

export class Sitemap {
  private readonly staticEntries: SitemapEntry[];
  private readonly deps: SitemapDeps;
  /** The plan of the data as this sidecar last saw it (built once per change; concurrent requests share it). */
  private plan: Promise<Plan> | undefined;
  /** Parts built or being built since the last change, most recently asked for last. */
  private readonly parts = new Map<number, Promise<Asset>>();
  private readonly partBytes = new Map<number, number>();
  /** The tail of the queue of builds: one at a time. */
  private turn: Promise<unknown> = Promise.resolve();
  /** Documents built since start (metrics: a crawler's requests are answered from memory between changes). */
  builds = 0;

  constructor(deps: SitemapDeps) {
    this.deps = deps;
    this.staticEntries = JSON.parse(readFileSync(deps.staticEntriesFile, 'utf8')) as SitemapEntry[];
    // Profiles and cards are its live part; an alias is not in it.
    deps.freshness.listen((event) => {
      if (event.reset || event.changes.some((c) => c.kind !== 'alias')) this.forget();
    });
  }

  /** /sitemap.xml: the list itself, or the index of its parts. */
  async index(): Promise<Asset> {
    return (await this.current()).index;
  }

  /** /sitemaps/{n}.xml, counting from 1; undefined when there is no such part. */
  async part(n: number): Promise<Asset | undefined> {
    const plan = await this.current();
    const part = plan.parts[n - 1];
    if (!part) return undefined;
    const kept = this.parts.get(n);
    if (kept) {
      // Most recently asked for goes last (a Map keeps insertion order).
      this.parts.delete(n);
      this.parts.set(n, kept);
      return kept;
    }
    this.refuseUnderPressure();
    const building = this.queued(() => this.buildPart(part));
    this.parts.set(n, building);
    building.then(
      (asset) => {
        if (this.parts.get(n) !== building) return;
        this.partBytes.set(n, (asset.encoded('gzip')?.body.length ?? 0) + (asset.encoded('br')?.body.length ?? 0));
        this.keepWithinBudget();
      },
      () => {
        if (this.parts.get(n) === building) this.parts.delete(n);
      },
    );
    return building;
  }

  private get limit(): number {
    return this.deps.limit ?? SITEMAP_URL_LIMIT;
  }

  /** A build is costly: under pressure it is refused (a 503: crawlers retry), and what is built keeps being served. */
  private refuseUnderPressure(): void {
    const why = this.deps.pressure?.refusal();
    if (why) throw new Overloaded(why);
  }

  /** Drops every document: the data they list changed. */
  private forget(): void {
    this.plan = undefined;
    this.parts.clear();
    this.partBytes.clear();
  }

  private keepWithinBudget(): void {
    let total = [...this.partBytes.values()].reduce((sum, bytes) => sum + bytes, 0);
    for (const n of this.parts.keys()) {
      if (total <= KEEP_BYTES) return;
      const bytes = this.partBytes.get(n);
      if (bytes === undefined) continue; // still being built
      this.parts.delete(n);
      this.partBytes.delete(n);
      total -= bytes;
    }
  }

  private async current(): Promise<Plan> {
    await this.deps.freshness.sync();
    if (!this.plan) {
      this.refuseUnderPressure();
      const plan = this.queued(() => this.buildPlan());
      this.plan = plan;
      // A failed build is not kept: the next request tries again.
      plan.catch(() => {
        if (this.plan === plan) this.plan = undefined;
      });
    }
    return this.plan;
  }

  /** Runs `build` after every build queued before it. */
  private queued<T>(build: () => Promise<T>): Promise<T> {
    const run = this.turn.then(build);
    this.turn = run.catch(() => undefined);
    return run;
  }

  /**
   * How many entries the live pages of `kind` make (one a language each is in), and the first key of each part of at
   * most `limit` entries: walked in steps of a slice of rows (fewer when `limit` is small), two queries each, so that no
   * step holds the event loop (SQLite's queries run on it) or a connection for long, however many there are. A part
   * ends at a step's end, so a part may hold a little less than `limit`, never more.
   */
  private async survey(
    kind: LivePageKind,
    limit: number,
  ): Promise<{ count: number; parts: { start: string; rows: number }[] }> {
    const { store } = this.deps;
    const parts: { start: string; rows: number }[] = [];
    const step = Math.max(1, Math.min(SLICE, Math.floor(limit / LANGS.length)));
    let count = 0;
    let inPart = 0;
    let after = '';
    for (;;) {
      const first = await store.liveKeyAfter(kind, after, 0);
      if (first === undefined) return { count, parts };
      const { rows, translated } = await store.liveCountAfter(kind, after, step);
      const entries = rows + translated * (LANGS.length - 1);
      if (parts.length === 0 || inPart + entries > limit) {
        parts.push({ start: first, rows: 0 });
        inPart = 0;
      }
      parts.at(-1)!.rows += rows;
      inPart += entries;
      count += entries;
      if (rows < step) return { count, parts };
      const last = await store.liveKeyAfter(kind, after, step - 1);
      if (last === undefined) return { count, parts };
      after = last;
      await turn();
    }
  }

  private async buildPlan(): Promise<Plan> {
    const { baseUrl } = this.deps;
    const limit = this.limit;
    const surveys = { profile: await this.survey('profile', limit), card: await this.survey('card', limit) };
    const counts = { profile: surveys.profile.count, card: surveys.card.count };
    if (this.staticEntries.length + counts.profile + counts.card <= limit) {
      // One list: small enough to be the sitemap itself.
      const index = await this.document(new SitemapStream({ xmlns: SITEMAP_XMLNS }), async (write) => {
        for (const entry of this.staticEntries) await write(entry);
        for (const kind of ['profile', 'card'] as const) await this.writeLive(kind, '', Infinity, write);
      });
      return { index, parts: [] };
    }
    const parts: Part[] = [];
    for (let i = 0; i < this.staticEntries.length; i += limit)
      parts.push({ kind: 'static', entries: this.staticEntries.slice(i, i + limit) });
    for (const kind of ['profile', 'card'] as const)
      for (const { start, rows } of surveys[kind].parts) parts.push({ kind, start, rows });
    const index = await this.document(new SitemapIndexStream(), async (write) => {
      for (let n = 1; n <= parts.length; n++)
        await write({ url: absoluteUrl(baseUrl, pathOf('getSitemapPart', { n: String(n) })) });
    });
    return { index, parts };
  }

  private buildPart(part: Part): Promise<Asset> {
    return this.document(new SitemapStream({ xmlns: SITEMAP_XMLNS }), async (write) => {
      if (part.kind === 'static') for (const entry of part.entries) await write(entry);
      else await this.writeLive(part.kind, part.start, part.rows, write);
    });
  }

  /** `rows` live pages of `kind` from the key `start` on (their entries), read a slice at a time (keyset pagination). */
  private async writeLive(
    kind: LivePageKind,
    start: string,
    rows: number,
    write: (entry: SitemapEntry) => Promise<void>,
  ): Promise<void> {
    let written = 0;
    let from = start;
    let skipFirst = false;
    while (written < rows) {
      const want = Math.min(SLICE, rows - written);
      const read = await this.deps.store.livePagesFrom(kind, from, want + (skipFirst ? 1 : 0));
      const fresh = skipFirst ? read.slice(1) : read;
      for (const page of fresh) for (const entry of this.entriesOf(kind, page)) await write(entry);
      written += fresh.length;
      if (fresh.length < want) return;
      from = fresh[fresh.length - 1]!.key;
      skipFirst = true;
      await turn();
    }
  }

  /**
   * A live page's entries: its printed address when it is in one language; else each language version at its own
   * address, with every version and the printed address (x-default) as its hreflang alternates.
   */
  private entriesOf(kind: LivePageKind, page: LivePage): SitemapEntry[] {
    const { baseUrl } = this.deps;
    const pathIn = (lang: Lang) =>
      kind === 'profile' ? paths.profile(page.key, lang, page.langs) : paths.card(page.key, lang, page.langs);
    if (page.langs.length < 2) return [{ url: absoluteUrl(baseUrl, pathIn(page.langs[0]!)), lastmod: page.lastmod }];
    const printed =
      kind === 'profile'
        ? pathOf('getProfilePage', { page: page.key })
        : pathOf('getDigitalCard', { cardId: page.key });
    const links = [
      ...page.langs.map((lang) => ({ lang, url: absoluteUrl(baseUrl, pathIn(lang)) })),
      { lang: 'x-default', url: absoluteUrl(baseUrl, printed) },
    ];
    return page.langs.map((lang) => ({ url: absoluteUrl(baseUrl, pathIn(lang)), lastmod: page.lastmod, links }));
  }

  /**
   * A document written by `feed` into `xml` (the sitemap library's stream), kept as gzip and brotli made on the
   * thread pool as it is written; the identity body is only counted. Writing waits whenever the compressors are
   * behind, so a large document is written in many turns of the event loop.
   */
  private async document(
    xml: Transform,
    feed: (write: (item: object) => Promise<void>) => Promise<void>,
  ): Promise<Asset> {
    this.builds++;
    const gzip = createGzip(zlibOptions('gzip', 0));
    const br = createBrotliCompress(zlibOptions('br', 0));
    // The library writes an entry at a time (100 bytes): handed to the compressors so, each is a trip to the thread
    // pool, and a part took 9 s of CPU instead of 0.4.
    const chunks = new Coalesced(256 * 1024);
    let size = 0;
    chunks.on('data', (chunk: Buffer) => (size += chunk.length));
    xml.pipe(chunks);
    chunks.pipe(gzip);
    chunks.pipe(br);
    const forms = Promise.all([collect(gzip), collect(br)]);
    // What the library throws inside its stream (an entry it refuses) is this build's failure, answered 500 and
    // logged, never an uncaught error that ends the process (issue 46: one bad date did, at every crawl).
    const failed = new Promise<never>((_resolve, reject) => {
      for (const stream of [xml, chunks]) stream.once('error', reject);
    });
    failed.catch(() => undefined);
    let sliceStarted = performance.now();
    try {
      await Promise.race([
        failed,
        feed(async (item) => {
          const more = xml.write(item);
          if (!more) await once(xml, 'drain');
          // Let other requests in between slices, pushed back or not (a drain comes in the same turn).
          if (performance.now() - sliceStarted >= SLICE_MS) {
            await turn();
            sliceStarted = performance.now();
          }
        }),
      ]);
      xml.end();
      const [gz, brotli] = await Promise.race([forms, failed]);
      return compressedAsset({ gzip: gz, br: brotli }, size, XML, CACHE.discovery);
    } catch (err) {
      for (const stream of [xml, chunks, gzip, br]) stream.destroy();
      forms.catch(() => undefined);
      throw err;
    }
  }
}

/**
 * A stream of the same bytes in chunks of `size` (the last may be smaller), copied into one buffer as they come: the
 * library's pieces (an entry, about 100 bytes) die young instead of thousands of them surviving garbage collections
 * while a chunk fills.
 */
class Coalesced extends Transform {
  private readonly size: number;
  /** The chunk being filled; made when its first byte comes (a document of a few entries takes a few hundred). */
  private buffer: Buffer | undefined;
  private bytes = 0;

  constructor(size: number) {
    super();
    this.size = size;
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: () => void): void {
    let from = 0;
    while (from < chunk.length) {
      this.buffer ??= Buffer.allocUnsafe(this.size);
      const copied = chunk.copy(this.buffer, this.bytes, from);
      this.bytes += copied;
      from += copied;
      if (this.bytes === this.size) this.release();
    }
    done();
  }

  override _flush(done: () => void): void {
    if (this.bytes > 0) this.release();
    done();
  }

  private release(): void {
    const full = this.buffer!;
    this.push(this.bytes === this.size ? full : full.subarray(0, this.bytes));
    this.buffer = undefined;
    this.bytes = 0;
  }
}

function collect(stream: Readable): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.once('end', () => resolve(Buffer.concat(chunks)));
    stream.once('error', reject);
  });
}
