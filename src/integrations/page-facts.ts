// What reading every built page teaches the build: each page's sitemap entry, the hashes of its inline styles and the
// Open Graph image it names. The Markdown twins step parses every page anyway, so it records them here once; the
// static sitemap, the build manifest and the Open Graph steps after it read them instead of parsing the pages again.
import type { SitemapEntry } from '../lib/sitemap.ts';
import type { OgMention } from './twin-cache.ts';

export interface PageFacts {
  /** The indexable pages' entries, in URL order. */
  sitemap: SitemapEntry[];
  /** The CSP sources of every inline style element, sorted, each once. */
  styleHashes: string[];
  /** The Open Graph image each page names (its file under dist/client, in file order), for the og-images step. */
  ogImages: [file: string, og: OgMention][];
}

export interface PageFactsBoard {
  record(facts: PageFacts): void;
  /** The facts the twins step recorded in this build; throws naming `step` when it has not run. */
  read(step: string): PageFacts;
}

/** One board per build, shared by astro.config.mjs between the step that writes it and the steps that read it. */
export function pageFacts(): PageFactsBoard {
  let recorded: PageFacts | undefined;
  return {
    record(facts) {
      recorded = facts;
    },
    read(step) {
      if (!recorded)
        throw new Error(
          `${step} runs after markdown-twins, which reads the pages: put it later in astro.config.mjs's integrations`,
        );
      return recorded;
    },
  };
}
