// Owners' images taken in by the import, once: an avatar's or card photo's address fetched (or a file named relative to
// the import file read), judged by its bytes, decoded and re-encoded by sharp (libvips: the build's image encoder
// already, decoding only the formats it is asked for, with a pixel limit against decompression bombs), cut square to
// the pages' sizes in WebP and JPEG with every metadata block left behind (EXIF's place and device, XMP, ICC), and
// named by a hash of the bytes it was made from (image-files.ts). Every cost is bounded where it arises: the bytes
// read, the time, the redirects, the pixels decoded; private, loopback and link-local addresses are refused at the
// moment of connecting (request-filtering-agent checks each address DNS gives, so a name that resolves to one is
// refused too) unless the operator allows them for local work. Used by the writer only: the server never imports it.
import { createHash } from 'node:crypto';
import { lookup as dnsLookup } from 'node:dns';
import { open, realpath, stat } from 'node:fs/promises';
import http from 'node:http';
import https from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { dirname, sep } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { useAgent } from 'request-filtering-agent';
import sharp, { type Metadata, type Sharp } from 'sharp';
import { paletteOf, storedTheme, substituteText } from '../../src/lib/theme.ts';
import {
  BACKDROP_WIDTHS,
  backdropFile,
  IMAGE_FORMATS,
  IMAGE_WIDTHS,
  imageFile,
  type ImageFormat,
} from '../../src/lib/image-files.ts';
import type { Result } from '../../src/lib/result.ts';
import type { ImportPlan } from './import-plan.ts';

interface ImageLimits {
  /** The most bytes read of one image, fetched or from a file. */
  bytes: number;
  /** The most pixels decoded (width × height): a phone's 48-megapixel photo fits, a decompression bomb does not. */
  pixels: number;
  /** How long one image may take to arrive, redirects included. */
  timeoutMs: number;
  /** How many redirects are followed. */
  redirects: number;
}

export const IMAGE_LIMITS: ImageLimits = {
  bytes: 15 * 1024 * 1024,
  pixels: 50_000_000,
  timeoutMs: 15_000,
  redirects: 3,
};

/**
 * How many images are taken at once. Each may decode up to `pixels` (a PNG is decoded whole: 50 megapixels are 200 MB),
 * and libvips spreads each over the cores already: two at a time bound the writer's memory near half a gigabyte.
 */
const CONCURRENCY = 2;

/**
 * The formats taken in, judged by the bytes (sharp's own detection), never by a name or a Content-Type. libvips reads
 * AVIF as HEIF (the container both share): AVIF is HEIF whose pictures are AV1; HEIF of HEVC (an iPhone's HEIC) is not
 * taken (sharp's build has no HEVC decoder).
 */
const ACCEPTED = new Set(['jpeg', 'png', 'webp', 'avif', 'gif']);
const formatOf = (meta: Metadata) =>
  meta.format === 'heif' ? (meta.compression === 'av1' ? 'avif' : 'heic') : meta.format;

/** Link-local addresses, IPv4 and IPv6 (an IPv4 one written as IPv6, ::ffff:169.254.169.254, too). */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
const LINK_LOCAL_REFUSAL =
  "its host is a link-local address (where clouds answer with their machines' credentials), which an import never fetches from, even with --allow-private-hosts";

function isLinkLocal(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
  if (mapped) return LINK_LOCAL.check(mapped, 'ipv4');
  return LINK_LOCAL.check(address, family === 6 ? 'ipv6' : 'ipv4');
}

/** Raised to make every image a new name when what the intake makes of the same bytes changes. */
const INTAKE_VERSION = 'image-intake-1';

export interface IntakeOptions {
  /** The import file, against whose location a relative reference is resolved; none for data given in code. */
  from?: string | undefined;
  /** Fetch from private, loopback and link-local addresses too (tests, an operator's local work). */
  allowPrivateHosts?: boolean | undefined;
  limits?: Partial<ImageLimits> | undefined;
}

/** An image as served: its identifier, and its files (every width in every format). */
interface TakenImage {
  id: string;
  files: { name: string; bytes: Uint8Array }[];
  /** A background image's: its dark and light tones (theme.ts judges text over them). */
  tones?: [string, string];
}

/** How an image is cut: square (avatars, photos, thumbnails, logos) or its shape kept (a theme's background). */
type Cut = 'square' | 'backdrop';

class ImageRefused extends Error {}

const isAbsolute = (ref: string) => /^[a-z][a-z\d+.-]*:/i.test(ref);

/** Each distinct reference taken once, at most CONCURRENCY at a time; a reference's reason when it cannot be. */
async function takeImages(
  refs: readonly string[],
  options: IntakeOptions = {},
  cut: Cut = 'square',
): Promise<Map<string, Result<{ image: TakenImage }, { reason: string }>>> {
  const limits = { ...IMAGE_LIMITS, ...options.limits };
  const queue = [...new Set(refs)];
  const taken = new Map<string, Result<{ image: TakenImage }, { reason: string }>>();
  const worker = async () => {
    for (let ref = queue.shift(); ref !== undefined; ref = queue.shift()) {
      try {
        taken.set(ref, { ok: true, image: await takeImage(ref, options, limits, cut) });
      } catch (err) {
        taken.set(ref, { ok: false, reason: reasonOf(err) });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(CONCURRENCY, queue.length) }, worker));
  return taken;
}

function reasonOf(err: unknown): string {
  if (err instanceof ImageRefused) return err.message;
  const error = err as NodeJS.ErrnoException;
  if (/not allowed\. Because, It is (private|meta) IP address/.test(error.message ?? ''))
    return 'its host is a private, loopback or link-local address, which an import does not fetch from';
  if (/not allowed\. Because It is defined in denyIPAddressList/.test(error.message ?? ''))
    return "its host is a link-local address (where clouds answer with their machines' credentials), which an import never fetches from, even with --allow-private-hosts";
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'its host name was not found';
  if (error.code === 'ECONNREFUSED') return 'its host refused the connection';
  if (error.code === 'ENOENT') return 'there is no such file';
  if (error.code) return `it could not be read (${error.code})`;
  return `it is not an image that can be read: ${String(error.message ?? err).split('\n')[0]}`;
}

async function takeImage(ref: string, options: IntakeOptions, limits: ImageLimits, cut: Cut): Promise<TakenImage> {
  const bytes = isAbsolute(ref) ? await fetchImage(ref, options, limits) : await readRelative(ref, options, limits);
  return cut === 'square' ? makeFiles(bytes, limits) : makeBackdrop(bytes, limits);
}

/** The bytes at an http(s) address, following at most `limits.redirects` redirects, in at most `limits.timeoutMs`. */
async function fetchImage(href: string, options: IntakeOptions, limits: ImageLimits): Promise<Uint8Array> {
  const signal = AbortSignal.timeout(limits.timeoutMs);
  try {
    let url = new URL(href);
    for (let hop = 0; ; hop++) {
      if (url.protocol !== 'http:' && url.protocol !== 'https:')
        throw new ImageRefused(`a redirect led to ${url.protocol} address, which an import does not fetch`);
      const response = await get(url, options, signal);
      const status = response.statusCode ?? 0;
      if ([301, 302, 303, 307, 308].includes(status)) {
        response.resume();
        if (hop >= limits.redirects) throw new ImageRefused(`it redirects more than ${limits.redirects} times`);
        const location = response.headers.location;
        if (!location) throw new ImageRefused(`the server answered ${status} with no Location`);
        url = new URL(location, url);
        continue;
      }
      if (status !== 200) {
        response.resume();
        throw new ImageRefused(`the server answered ${status}`);
      }
      const declared = Number(response.headers['content-length']);
      if (declared > limits.bytes) {
        response.destroy();
        throw new ImageRefused(`it is ${declared} bytes, more than the ${limits.bytes} bytes an image may be`);
      }
      return await readAtMost(response, limits.bytes);
    }
  } catch (err) {
    // Whatever the deadline interrupted (the connection, a redirect, the body), it is the deadline that refused it.
    throw signal.aborted ? new ImageRefused(`it did not arrive in ${limits.timeoutMs / 1000} s`) : err;
  }
}

function get(url: URL, options: IntakeOptions, signal: AbortSignal): Promise<http.IncomingMessage> {
  const agent = useAgent(url.href, {
    allowPrivateIPAddress: options.allowPrivateHosts ?? false,
    allowMetaIPAddress: false,
    keepAlive: false,
  });
  // Never, whatever the operator allows: link-local is where a cloud's metadata service hands out its machine's
  // credentials (169.254.169.254), not where an owner's picture lives (issue 46). Judged on the name as written and on
  // every address DNS gives for it.
  if (isLinkLocal(url.hostname.replace(/^\[|\]$/g, ''))) return Promise.reject(new ImageRefused(LINK_LOCAL_REFUSAL));
  const lookup: LookupFunction = (hostname, lookupOptions, callback) =>
    dnsLookup(hostname, lookupOptions, (err, address, family) => {
      const found = typeof address === 'string' ? [address] : (address ?? []).map((a) => a.address);
      if (!err && found.some(isLinkLocal)) return callback(new ImageRefused(LINK_LOCAL_REFUSAL), '', 0);
      (callback as (...args: unknown[]) => void)(err, address, family);
    });
  const request = url.protocol === 'https:' ? https.get : http.get;
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { agent, signal, lookup, headers: { accept: 'image/*', 'user-agent': 'bio-import' } },
      resolve,
    );
    req.on('error', reject);
  });
}

/** At most `max` bytes of a stream: one more and it is refused, without reading the rest. */
async function readAtMost(stream: AsyncIterable<Uint8Array> & { destroy(): void }, max: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of stream) {
    length += chunk.byteLength;
    if (length > max) {
      stream.destroy();
      throw new ImageRefused(`it is more than the ${max} bytes an image may be`);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks, length);
}

/** A file named relative to the import file, as a relative URL is resolved, and inside the import file's folder. */
async function readRelative(ref: string, options: IntakeOptions, limits: ImageLimits): Promise<Uint8Array> {
  if (!options.from)
    throw new ImageRefused('a relative reference names a file beside the import file, and this import has no file');
  const outside = () => new ImageRefused("it names a file outside the import file's folder");
  const named = fileURLToPath(new URL(ref, pathToFileURL(options.from)));
  if (!named.startsWith(dirname(options.from) + sep)) throw outside();
  // And where it really is: a link inside the folder to a file outside it is outside.
  const path = await realpath(named);
  if (!path.startsWith((await realpath(dirname(options.from))) + sep)) throw outside();
  // Only a regular file: opening a named pipe or a device would wait, or read, without end.
  if (!(await stat(path)).isFile()) throw new ImageRefused('it is not a file');
  const file = await open(path, 'r');
  try {
    const { size } = await file.stat();
    if (size > limits.bytes)
      throw new ImageRefused(`it is ${size} bytes, more than the ${limits.bytes} bytes an image may be`);
    return await readAtMost(file.createReadStream({ autoClose: false }), limits.bytes);
  } finally {
    await file.close();
  }
}

/** The identifier of the image taken from `bytes`: 32 hexadecimal digits of their SHA-256 (and the intake's version). */
export function imageIdOf(bytes: Uint8Array): string {
  return createHash('sha256').update(INTAKE_VERSION).update('\0').update(bytes).digest('hex').slice(0, 32);
}

/** What an image's bytes are, judged before a pixel is decoded: refused unless a format taken, within the pixel bound. */
async function judged(bytes: Uint8Array, limits: ImageLimits): Promise<void> {
  let meta: Metadata;
  try {
    // The header only: what the bytes are and the size they claim, judged before a pixel is decoded.
    meta = await sharp(bytes, { limitInputPixels: false, failOn: 'none' }).metadata();
  } catch {
    throw new ImageRefused('its bytes are not an image in a format taken (JPEG, PNG, WebP, AVIF, GIF)');
  }
  const format = formatOf(meta);
  if (!format || !ACCEPTED.has(format))
    throw new ImageRefused(`its bytes are ${format ?? 'no'} image; taken are JPEG, PNG, WebP, AVIF and GIF`);
  const pixels = (meta.width ?? 0) * (meta.height ?? 0);
  if (pixels > limits.pixels)
    throw new ImageRefused(
      `it is ${meta.width}×${meta.height} pixels, more than the ${limits.pixels} an image may be decoded to`,
    );
}

const ENCODE: Record<ImageFormat, (s: Sharp) => Sharp> = {
  webp: (s) => s.webp({ quality: 80 }),
  jpg: (s) => s.jpeg({ quality: 82, mozjpeg: true }),
};

/** The image's files: judged by its bytes, then every width cut square from it in every format, metadata left out. */
async function makeFiles(bytes: Uint8Array, limits: ImageLimits): Promise<TakenImage> {
  const input = { limitInputPixels: limits.pixels, failOn: 'error', animated: false } as const;
  await judged(bytes, limits);
  const id = imageIdOf(bytes);
  // Decoded once at the largest size; the smaller ones are cut from that (a 48-megapixel photo is not decoded six times).
  const largest = Math.max(...IMAGE_WIDTHS);
  const square = await sharp(bytes, input)
    .rotate() // EXIF's orientation applied to the pixels, since the metadata that says it is left out
    .resize(largest, largest, { fit: 'cover', position: 'attention' })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: square.info.width, height: square.info.height, channels: square.info.channels } };
  const files = await Promise.all(
    IMAGE_WIDTHS.flatMap((width) =>
      (Object.keys(IMAGE_FORMATS) as ImageFormat[]).map(async (format) => ({
        name: imageFile(id, width, format),
        bytes: await ENCODE[format](sharp(square.data, raw).resize(width, width)).toBuffer(),
      })),
    ),
  );
  return { id, files };
}

/**
 * A theme's background image (issue 49): judged as every image is, cut to each backdrop width with its shape kept
 * (never enlarged), metadata left out; and its tones, the darkest and the lightest of its colours (the 5th and 95th
 * percentile of luminance over a 24 × 24 reduction), which theme.ts judges text against.
 */
async function makeBackdrop(bytes: Uint8Array, limits: ImageLimits): Promise<TakenImage> {
  const input = { limitInputPixels: limits.pixels, failOn: 'error', animated: false } as const;
  await judged(bytes, limits);
  // Its own identifier space: the same bytes as an avatar are other files.
  const id = imageIdOf(Buffer.concat([Buffer.from('backdrop\0'), bytes]));
  const largest = Math.max(...BACKDROP_WIDTHS);
  const whole = await sharp(bytes, input)
    .rotate()
    .resize(largest, largest, { fit: 'inside', withoutEnlargement: true })
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .removeAlpha()
    .raw()
    .toBuffer({ resolveWithObject: true });
  const raw = { raw: { width: whole.info.width, height: whole.info.height, channels: whole.info.channels } };
  const files = await Promise.all(
    BACKDROP_WIDTHS.flatMap((width) =>
      (Object.keys(IMAGE_FORMATS) as ImageFormat[]).map(async (format) => ({
        name: backdropFile(id, width, format),
        bytes: await ENCODE[format](
          sharp(whole.data, raw).resize(width, width, { fit: 'inside', withoutEnlargement: true }),
        ).toBuffer(),
      })),
    ),
  );
  const small = await sharp(whole.data, raw).resize(24, 24, { fit: 'fill' }).raw().toBuffer();
  const pixels: { hex: string; y: number }[] = [];
  for (let i = 0; i + 2 < small.length; i += 3) {
    const [r, g, b] = [small[i]!, small[i + 1]!, small[i + 2]!];
    pixels.push({
      hex: `#${[r, g, b].map((c) => c.toString(16).padStart(2, '0')).join('')}`,
      y: 0.2126 * r + 0.7152 * g + 0.0722 * b,
    });
  }
  pixels.sort((a, b) => a.y - b.y);
  const at = (q: number) => pixels[Math.min(pixels.length - 1, Math.floor(q * pixels.length))]!.hex;
  return { id, files, tones: [at(0.05), at(0.95)] };
}

/** The reference of a theme's background image (its JSON as the plan holds it), if it has one. */
function backdropRef(theme: string | null | undefined): string | null {
  if (!theme) return null;
  const image = (JSON.parse(theme) as { background?: { image?: unknown } | null }).background?.image;
  return typeof image === 'string' ? image : null;
}

/**
 * The plan with its images taken: each profile's avatar and card's photo named by the image made from it, and the
 * files to write; or every reference that could not be taken, named by its record and field, and nothing to write.
 */
export async function withImages(
  plan: ImportPlan,
  options: IntakeOptions = {},
): Promise<Result<{ plan: ImportPlan }, { errors: string[] }>> {
  const profileIndex = new Map(plan.profiles.map((p, i) => [p.slug, i]));
  const fields = [
    ...plan.profiles.map((p, i) => ({
      ref: p.avatar_url ?? null,
      field: `profiles[${i}] (slug "${p.slug}").avatarUrl`,
    })),
    ...plan.cards.map((c, i) => ({ ref: c.photo_url ?? null, field: `cards[${i}] (cardId "${c.card_id}").photoUrl` })),
    ...plan.cards.map((c, i) => ({ ref: c.logo_url ?? null, field: `cards[${i}] (cardId "${c.card_id}").logoUrl` })),
    ...plan.links.map((l) => ({
      ref: l.thumbnail_url ?? null,
      field: `profiles[${profileIndex.get(l.slug)}] (slug "${l.slug}").links[${l.position}].thumbnailUrl`,
    })),
  ].filter((f): f is { ref: string; field: string } => f.ref !== null);
  // A theme's background image, cut with its shape kept (issue 49).
  const records = [
    ...plan.profiles.map((p, i) => ({ theme: p.theme, at: `profiles[${i}] (slug "${p.slug}")` })),
    ...plan.cards.map((c, i) => ({ theme: c.theme, at: `cards[${i}] (cardId "${c.card_id}")` })),
  ];
  const backdrops = records
    .map((r) => ({ ref: backdropRef(r.theme), field: `${r.at}.theme.background.image`, at: r.at }))
    .filter((f): f is { ref: string; field: string; at: string } => f.ref !== null);
  const [taken, takenBackdrops] = await Promise.all([
    takeImages(
      fields.map((f) => f.ref),
      options,
    ),
    takeImages(
      backdrops.map((f) => f.ref),
      options,
      'backdrop',
    ),
  ]);
  const errors = [
    ...fields.map((f) => ({ ...f, outcome: taken.get(f.ref) })),
    ...backdrops.map((f) => ({ ...f, outcome: takenBackdrops.get(f.ref) })),
  ].flatMap(({ ref, field, outcome }) =>
    outcome && !outcome.ok ? [`${field} ${JSON.stringify(ref)}: ${outcome.reason}`] : [],
  );
  if (errors.length > 0) return { ok: false, errors };
  /** A theme with its background image named by what was taken from it, and its tones. */
  const withBackdrop = (theme: string | null | undefined, at: string): string | null => {
    const ref = backdropRef(theme);
    const outcome = ref === null ? undefined : takenBackdrops.get(ref);
    if (!outcome?.ok || !outcome.image.tones) return theme ?? null;
    const parsed = JSON.parse(theme!) as Record<string, unknown>;
    const stored = { ...parsed, background: { image: outcome.image.id, tones: outcome.image.tones } };
    // Judged now that its tones are known: what a page will draw otherwise is said, as for a colour.
    const shown = storedTheme(stored);
    if (shown)
      for (const s of paletteOf(shown).substitutes) notices.push(`${at}.theme.${s.field} ${substituteText(s)}`);
    return JSON.stringify(stored);
  };
  const notices = [...plan.notices];
  const idOf = (ref: string | null | undefined) => {
    const outcome = ref === null || ref === undefined ? undefined : taken.get(ref);
    return outcome?.ok ? outcome.image.id : null;
  };
  const files = new Map(
    [...taken.values(), ...takenBackdrops.values()].flatMap((t) => (t.ok ? t.image.files : [])).map((f) => [f.name, f]),
  );
  return {
    ok: true,
    plan: {
      ...plan,
      profiles: plan.profiles.map((p, i) => ({
        ...p,
        avatar_image: idOf(p.avatar_url),
        theme: withBackdrop(p.theme, records[i]!.at),
      })),
      cards: plan.cards.map((c, i) => ({
        ...c,
        photo_image: idOf(c.photo_url),
        logo_image: idOf(c.logo_url),
        theme: withBackdrop(c.theme, records[plan.profiles.length + i]!.at),
      })),
      notices,
      links: plan.links.map((l) => ({ ...l, thumbnail_image: idOf(l.thumbnail_url) })),
      images: [...files.values()],
    },
  };
}
