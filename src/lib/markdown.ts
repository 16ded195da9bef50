// The one HTML-to-Markdown conversion: build-time twins, live pages and MCP tools all call pageToMarkdown.
import { createDocument } from '@mixmark-io/domino';
import TurndownService from 'turndown';
import { gfm } from '@joplin/turndown-plugin-gfm';
import matter from 'gray-matter';

export interface PageMeta {
  title: string;
  description: string;
  /** Absolute canonical URL of the HTML page. */
  url: string;
  lang: string;
}

/**
 * Elements that are chrome or behaviour, never content: these tags (unless marked `[data-twin="keep"]`, as the
 * blog's page links are: an agent pages through them too), and `[hidden]`, `[aria-hidden="true"]`, `[data-twin="skip"]`.
 * An element marked `[data-twin="only"]` is the reverse: not shown on the page (global.css), kept here.
 */
const REMOVED_TAGS = new Set([
  'SCRIPT',
  'STYLE',
  'NOSCRIPT',
  'TEMPLATE',
  'FORM',
  'NAV',
  'IFRAME',
  'OBJECT',
  'EMBED',
  'BUTTON',
  'INPUT',
  'SELECT',
  'TEXTAREA',
  'DIALOG',
]);
const isChrome = (el: Element) =>
  (REMOVED_TAGS.has(el.tagName) && el.getAttribute('data-twin') !== 'keep') ||
  el.hasAttribute('hidden') ||
  el.getAttribute('aria-hidden') === 'true' ||
  el.getAttribute('data-twin') === 'skip';

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
  linkStyle: 'inlined',
});
turndown.use(gfm);

/**
 * Markdown escapes for text that comes from content (owners' names and bios, article prose). Turndown's own list,
 * plus `<` and `>` everywhere (else `<script>` or an autolink `<javascript:…>` would be live for any renderer that
 * allows HTML) and `&` where it would start a character reference. Code is never escaped (turndown keeps it as is).
 */
const ESCAPES: [RegExp, string][] = [
  [/\\/g, '\\\\'],
  [/[*`[\]_<>]/g, '\\$&'],
  [/&(?=#?[a-z0-9]+;)/gi, '\\&'],
  [/^-/g, '\\-'],
  [/^\+ /g, '\\+ '],
  [/^(=+)/g, '\\$1'],
  [/^(#{1,6}) /g, '\\$1 '],
  [/^~~~/g, '\\~~~'],
  [/^(\d+)\. /g, '$1\\. '],
];

export function escapeMarkdownText(text: string): string {
  return ESCAPES.reduce((out, [pattern, replacement]) => out.replace(pattern, replacement), text);
}
turndown.escape = escapeMarkdownText;
// Turndown pads list markers to four columns; one space is what people write and what GFM needs.
turndown.addRule('listItem', {
  filter: 'li',
  replacement(content, node) {
    const parent = node.parentNode as HTMLElement | null;
    let marker = '- ';
    if (parent?.nodeName === 'OL') {
      const start = Number(parent.getAttribute('start') ?? 1);
      marker = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
    }
    const body = withOuterNewlinesCut(content).replace(/\n/g, '\n' + ' '.repeat(marker.length));
    return marker + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
  },
});

/**
 * `text` without the line feeds it starts with, and those it ends with made one: a pass from each end, where
 * `/\n+$/` would try every start in a long run of them.
 */
function withOuterNewlinesCut(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '\n') start++;
  while (end > start && text[end - 1] === '\n') end--;
  return text.slice(start, end) + (end < text.length ? '\n' : '');
}

class MarkdownConversionError extends Error {
  override name = 'MarkdownConversionError';
}

function absolutize(value: string, base: string): string | null {
  try {
    const u = new URL(value, base);
    // Only schemes a reader can follow survive; anything else (javascript:, data:) is dropped.
    return ['http:', 'https:', 'mailto:', 'tel:'].includes(u.protocol) ? u.href : null;
  } catch {
    return null;
  }
}

/** Parses a full HTML document once, for pageToMarkdown and sitemapEntryOf. */
export function parsePage(html: string): Document {
  return createDocument(html, true);
}

/**
 * Converts a full HTML document (or one parsed by parsePage, which this changes) to its Markdown twin: a
 * front-matter block with exactly title, description, url and lang, then the page's <main> as Markdown with
 * absolute links.
 */
export function pageToMarkdown(page: string | Document): string {
  const doc = typeof page === 'string' ? parsePage(page) : page;
  const meta = readMeta(doc);
  const main = (doc.body && Array.from(doc.body.getElementsByTagName('main'))[0]) ?? doc.body;
  if (!main) throw new MarkdownConversionError(`page ${meta.url} has no <main> or <body>`);

  prepare(main, meta.url);
  // Turndown converts a clone, which would not have the fixed rows; this document is already a throwaway copy.
  Object.defineProperty(main, 'cloneNode', { value: () => main });
  const body = turndown.turndown(main).trim();
  return markdownDocument(meta, body);
}

/** A Markdown document: the twin's front matter (title, description, url, lang), then the body. */
export function markdownDocument(meta: PageMeta, body: string): string {
  // lineWidth -1: one line per value, never YAML's folded style.
  return matter.stringify(
    body.trim() + '\n',
    { title: meta.title, description: meta.description, url: meta.url, lang: meta.lang },
    { lineWidth: -1 } as matter.GrayMatterOption<string, never>,
  );
}

/** An inline link whose text and destination come from content: both escaped, so neither can end the link early. */
export function markdownLink(text: string, href: string): string {
  return `[${escapeMarkdownText(text)}](${href.replace(/[()<>\s\\]/g, (ch) => (/\s/.test(ch) ? encodeURIComponent(ch) : `\\${ch}`))})`;
}

/**
 * One walk over <main> (domino's selector engine walks the tree once per selector, which was a fifth of a twin's
 * time): drops chrome, makes links and images absolute (or drops them), and fixes each table's rows. The GFM table
 * rules read `table.rows` in loops, and domino answers each read with a new live list that walks the whole table
 * (a third of a twin's time for a page with one small table).
 */
function prepare(root: Element, base: string): void {
  for (const el of Array.from(root.children)) {
    if (isChrome(el)) {
      el.remove();
      continue;
    }
    if (el.tagName === 'A' && el.hasAttribute('href')) {
      const href = absolutize(el.getAttribute('href') ?? '', base);
      if (href) el.setAttribute('href', href);
      else el.removeAttribute('href');
    } else if (el.tagName === 'IMG') {
      const src = absolutize(el.getAttribute('src') ?? '', base);
      if (src) el.setAttribute('src', src);
      else {
        el.remove();
        continue;
      }
      // A picture decorative in the page (alt="", beside the name it stands for) but alone in the twin is named there
      // (issue 62: a card's logo and photo were two anonymous images to an agent). The name is an owner's: escaped,
      // since turndown writes an image's alt as it is.
      const twinAlt = el.getAttribute('data-twin-alt');
      if (twinAlt !== null) el.setAttribute('alt', escapeMarkdownText(twinAlt.replace(/\s+/g, ' ')));
    } else if (el.tagName === 'TABLE') {
      Object.defineProperty(el, 'rows', { value: Array.from((el as HTMLTableElement).rows) });
    }
    prepare(el, base);
  }
}

/** The <head> elements a twin and a sitemap entry read, in one pass. */
export function headOf(doc: Document): {
  find(tag: string, attr: string, value: string): Element | undefined;
  all(tag: string, attr: string, value: string): Element[];
} {
  const elements = Array.from(doc.head?.children ?? []);
  const matches = (tag: string, attr: string, value: string) => (el: Element) =>
    el.tagName === tag && el.getAttribute(attr) === value;
  return {
    find: (tag, attr, value) => elements.find(matches(tag, attr, value)),
    all: (tag, attr, value) => elements.filter(matches(tag, attr, value)),
  };
}

function readMeta(doc: Document): PageMeta {
  const head = headOf(doc);
  const attr = (tag: string, key: string, value: string, name: string) =>
    head.find(tag, key, value)?.getAttribute(name)?.trim() ?? '';
  const url = attr('LINK', 'rel', 'canonical', 'href');
  if (!url) throw new MarkdownConversionError('page has no <link rel="canonical">, so its twin cannot say its URL');
  return {
    title: attr('META', 'property', 'og:title', 'content') || doc.title.trim(),
    description: attr('META', 'name', 'description', 'content'),
    url,
    lang: doc.documentElement.getAttribute('lang') ?? '',
  };
}
