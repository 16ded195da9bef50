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

/** Elements that are chrome or behaviour, never content. */
const REMOVED = 'script, style, noscript, template, form, nav, iframe, object, embed, button, input, select, textarea, dialog, [hidden], [aria-hidden="true"], [data-twin="skip"]';

const turndown = new TurndownService({
  headingStyle: 'atx',
  codeBlockStyle: 'fenced',
  bulletListMarker: '-',
  emDelimiter: '_',
  linkStyle: 'inlined',
});
turndown.use(gfm);
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
    const body = content.replace(/^\n+/, '').replace(/\n+$/, '\n').replace(/\n/gm, '\n' + ' '.repeat(marker.length));
    return marker + body + (node.nextSibling && !/\n$/.test(body) ? '\n' : '');
  },
});

export class MarkdownConversionError extends Error {
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

/**
 * Converts a full HTML document to its Markdown twin: a front-matter block with exactly
 * title, description, url and lang, then the page's <main> as Markdown with absolute links.
 */
export function pageToMarkdown(html: string): string {
  const doc = createDocument(html, true);
  const meta = readMeta(doc);
  const main = doc.querySelector('main') ?? doc.body;
  if (!main) throw new MarkdownConversionError(`page ${meta.url} has no <main> or <body>`);

  for (const el of Array.from(main.querySelectorAll(REMOVED))) el.remove();
  for (const a of Array.from(main.querySelectorAll('a[href]'))) {
    const href = absolutize(a.getAttribute('href') ?? '', meta.url);
    if (href) a.setAttribute('href', href);
    else a.removeAttribute('href');
  }
  for (const img of Array.from(main.querySelectorAll('img'))) {
    const src = absolutize(img.getAttribute('src') ?? '', meta.url);
    if (src) img.setAttribute('src', src);
    else img.remove();
  }

  const body = turndown.turndown(main as unknown as HTMLElement).trim();
  // lineWidth -1: one line per value, never YAML's folded style.
  return matter.stringify(body + '\n', { ...meta }, { lineWidth: -1 } as matter.GrayMatterOption<string, never>);
}

function readMeta(doc: Document): PageMeta {
  const attr = (selector: string, name: string) => doc.querySelector(selector)?.getAttribute(name)?.trim() ?? '';
  const url = attr('link[rel="canonical"]', 'href');
  if (!url) throw new MarkdownConversionError('page has no <link rel="canonical">, so its twin cannot say its URL');
  return {
    title: attr('meta[property="og:title"]', 'content') || doc.title.trim(),
    description: attr('meta[name="description"]', 'content'),
    url,
    lang: doc.documentElement.getAttribute('lang') ?? '',
  };
}
