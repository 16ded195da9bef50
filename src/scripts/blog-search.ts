// The blog's search page: runs the query in the browser over the build's Pagefind index of this page's language
// (Pagefind loads the index matching <html lang>), and draws the results as plain elements (no HTML from the index
// is inserted as markup except Pagefind's <mark> highlights, rebuilt as elements).
import { queryVariants } from '../lib/blog/arabic-search.ts';
import type { Plural } from '../lib/i18n.ts';

interface Result {
  id: string;
  data(): Promise<{ url: string; meta: { title?: string }; excerpt: string }>;
}
interface Pagefind {
  options(o: Record<string, unknown>): Promise<void>;
  search(q: string): Promise<{ results: Result[] } | null>;
}
interface Messages {
  results: Plural;
  none: string;
  unavailable: string;
}

const MAX_RESULTS = 20;
const form = document.querySelector<HTMLFormElement>('form.search');
const input = form?.querySelector<HTMLInputElement>('input[name="q"]');
const status = document.querySelector<HTMLElement>('.search-status');
const list = document.querySelector<HTMLOListElement>('.search-results');

if (form?.dataset.index && input && status && list) {
  const index = form.dataset.index;
  const lang = document.documentElement.lang;
  const messages = JSON.parse(form.dataset.messages ?? '{}') as Messages;
  const rules = new Intl.PluralRules(lang);
  const fill = (template: string, values: Record<string, string | number>) =>
    template.replace(/\{(\w+)\}/g, (whole, name: string) => String(values[name] ?? whole));
  let pagefind: Promise<Pagefind> | undefined;
  const load = () =>
    (pagefind ??= (async () => {
      const url = `${index}pagefind.js`;
      const module = (await import(/* @vite-ignore */ url)) as Pagefind;
      await module.options({ excerptLength: 24 });
      return module;
    })());

  /** An excerpt with Pagefind's <mark> highlights, as text nodes and <mark> elements. */
  const excerpt = (html: string) => {
    const p = document.createElement('p');
    const parsed = new DOMParser().parseFromString(`<body>${html}</body>`, 'text/html').body;
    for (const node of Array.from(parsed.childNodes)) {
      if (node.nodeName === 'MARK') {
        const mark = document.createElement('mark');
        mark.textContent = node.textContent;
        p.append(mark);
      } else p.append(node.textContent ?? '');
    }
    return p;
  };

  let current = 0;
  const run = async (query: string) => {
    const run = ++current;
    list.replaceChildren();
    status.textContent = '';
    if (!query.trim()) return;
    let engine: Pagefind;
    try {
      engine = await load();
    } catch {
      status.textContent = messages.unavailable;
      return;
    }
    const seen = new Set<string>();
    const found: Result[] = [];
    for (const variant of queryVariants(query)) {
      const answer = await engine.search(variant);
      for (const result of answer?.results ?? []) {
        if (seen.has(result.id)) continue;
        seen.add(result.id);
        found.push(result);
      }
    }
    const shown = await Promise.all(found.slice(0, MAX_RESULTS).map((r) => r.data()));
    if (run !== current) return;
    for (const data of shown) {
      const item = document.createElement('li');
      const heading = document.createElement('h2');
      const link = document.createElement('a');
      // Pagefind names pages by their files (/en/blog/x.html); the page's URL is /en/blog/x.
      link.href = data.url.replace(/\.html$/, '');
      link.textContent = data.meta.title ?? data.url;
      heading.append(link);
      item.append(heading, excerpt(data.excerpt));
      list.append(item);
    }
    status.textContent =
      found.length === 0
        ? fill(messages.none, { q: query })
        : fill(messages.results[rules.select(found.length)] ?? messages.results.other, { n: found.length, q: query });
  };

  const initial = new URLSearchParams(location.search).get('q') ?? '';
  input.value = initial.slice(0, 200);
  void run(input.value);
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const url = new URL(location.href);
    url.searchParams.set('q', input.value);
    history.replaceState(null, '', url);
    void run(input.value);
  });
}
