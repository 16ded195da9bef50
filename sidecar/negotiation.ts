// Which representation and language a request asks for, decided by the negotiator library (RFC 9110 q-values).
import Negotiator from 'negotiator';
import { DEFAULT_LANG, LANGS, type Lang } from '../src/lib/site-config.ts';

type Headers = Record<string, string | string[] | undefined>;

/**
 * True when the client prefers Markdown to HTML. HTML comes first in the list, so it wins ties
 * (`*\/*`, `text/*`, no Accept at all) and is also the answer when neither is acceptable: a browser
 * always gets a page it can show.
 */
export function prefersMarkdown(headers: Headers): boolean {
  if (!headers.accept) return false;
  return new Negotiator({ headers }).mediaType(['text/html', 'text/markdown']) === 'text/markdown';
}

/** The visitor's preferred site language from Accept-Language; English when nothing matches. */
export function preferredLang(headers: Headers): Lang {
  if (!headers['accept-language']) return DEFAULT_LANG;
  // The default language first: it wins ties such as `*`.
  const lang = new Negotiator({ headers }).language([DEFAULT_LANG, ...LANGS.filter((l) => l !== DEFAULT_LANG)]);
  return (lang as Lang | undefined) ?? DEFAULT_LANG;
}
