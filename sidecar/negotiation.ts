// Which representation and language a request asks for, decided by the negotiator library (RFC 9110 q-values).
import Negotiator from 'negotiator';
import { ENCODINGS, type Encoding } from '../src/lib/compression.ts';
import { DEFAULT_LANG, LANGS, type Lang } from '../src/lib/site-config.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * The most of an Accept, Accept-Language or Accept-Encoding header the negotiation reads (issue 60): real ones are a
 * few dozen characters; what follows the last whole entry within this is ignored, here and at the front
 * (deploy/negotiate.js, which is given it as $negotiated_chars), so that both decide alike and a 16 KiB header costs
 * what a 1 KiB one does.
 */
export const NEGOTIATED_HEADER_CHARS = 1024;

/** `header` as the negotiation reads it: cut after its last whole entry within NEGOTIATED_HEADER_CHARS. */
function negotiable(header: string | string[] | undefined): string {
  const value = Array.isArray(header) ? header.join(',') : (header ?? '');
  if (value.length <= NEGOTIATED_HEADER_CHARS) return value;
  const cut = value.lastIndexOf(',', NEGOTIATED_HEADER_CHARS);
  return cut === -1 ? '' : value.slice(0, cut);
}

/**
 * Remembers the answer for the header values seen most (clients send few distinct ones): parsing q-values on
 * every request was a sixth of the CPU of a Markdown twin. Bounded (500 values of at most 256 characters;
 * emptied when full), so that hostile headers cannot grow it.
 */
function memo<T>(decide: (value: string) => T, max = 500): (value: string) => T {
  const answers = new Map<string, T>();
  return (value) => {
    if (value.length > 256) return decide(value);
    let answer = answers.get(value);
    if (answer === undefined) {
      if (answers.size >= max) answers.clear();
      answer = decide(value);
      answers.set(value, answer);
    }
    return answer;
  };
}

/**
 * Accept with each range's parameters dropped but its weight: a page has one HTML and one Markdown form, both UTF-8,
 * so `text/markdown; charset=utf-8` or RFC 7763's `variant=GFM` still names the twin (negotiator alone would match
 * a range with parameters only to a type offered with the same ones). Split, never matched by a pattern: a header of
 * 16 KiB costs one pass.
 */
function withoutParameters(accept: string): string {
  return accept
    .split(',')
    .map((range) => {
      const [type = '', ...parameters] = range.split(';');
      const weight = parameters.find((p) => p.trim().toLowerCase().startsWith('q='));
      return weight === undefined ? type : `${type};${weight}`;
    })
    .join(',');
}

const markdownFor = memo(
  (accept) =>
    new Negotiator({ headers: { accept: withoutParameters(accept) } }).mediaType(['text/html', 'text/markdown']) ===
    'text/markdown',
);
// The default language first: it wins ties such as `*`.
const langFor = memo(
  (acceptLanguage) =>
    (new Negotiator({ headers: { 'accept-language': acceptLanguage } }).language([
      DEFAULT_LANG,
      ...LANGS.filter((l) => l !== DEFAULT_LANG),
    ]) as Lang | undefined) ?? DEFAULT_LANG,
);

/**
 * True when the client prefers Markdown to HTML. HTML comes first in the list, so it wins ties
 * (`*\/*`, `text/*`, no Accept at all) and is also the answer when neither is acceptable: a browser
 * always gets a page it can show.
 */
export function prefersMarkdown(headers: Headers): boolean {
  const accept = negotiable(headers.accept);
  if (!accept) return false;
  return markdownFor(accept);
}

const langAmongFor = memo((key) => {
  const cut = key.indexOf('\n');
  const offered = key.slice(0, cut).split(',');
  return (new Negotiator({ headers: { 'accept-language': key.slice(cut + 1) } }).language(offered) ??
    null) as Lang | null;
});

/**
 * Which of `offered` (a profile's or card's languages, its own first) Accept-Language prefers, by q-value (a regional
 * range such as `ar-SA` names `ar`; on a tie, the one the header lists first; `*`, the first offered); undefined when
 * the header is absent or accepts none of them.
 */
export function preferredAmong(acceptLanguage: string | undefined, offered: readonly Lang[]): Lang | undefined {
  const header = negotiable(acceptLanguage);
  if (!header || offered.length < 2) return undefined;
  return langAmongFor(`${offered.join(',')}\n${header}`) ?? undefined;
}

/** The visitor's preferred site language from Accept-Language; English when nothing matches. */
export function preferredLang(headers: Headers): Lang {
  const acceptLanguage = negotiable(headers['accept-language']);
  if (!acceptLanguage) return DEFAULT_LANG;
  return langFor(acceptLanguage);
}

const OFFERED = [...ENCODINGS, 'identity'];
// Brotli first on a tie (`gzip, br`, `*`): it is the smaller. `identity` is what a client gets when it accepts neither.
const encodingFor = memo((acceptEncoding) => {
  // negotiator 1.x takes `preferred` (its types do not say so yet).
  const negotiator = new Negotiator({ headers: { 'accept-encoding': acceptEncoding } }) as unknown as {
    encoding(available: string[], options: { preferred: string[] }): string | undefined;
  };
  const chosen = negotiator.encoding(OFFERED, { preferred: OFFERED });
  return (ENCODINGS as readonly string[]).includes(chosen ?? '') ? (chosen as Encoding) : null;
});

/** The content coding to send (RFC 9110 §12.5.3, q-values honoured), or undefined for the body as it is. */
export function preferredEncoding(headers: Headers): Encoding | undefined {
  const acceptEncoding = negotiable(headers['accept-encoding']);
  if (!acceptEncoding) return undefined;
  return encodingFor(acceptEncoding) ?? undefined;
}
