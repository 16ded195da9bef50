// The configuration the pages are built for, embedded at build time (astro.config.mjs defines __SITE_CONFIG__),
// so that prerendered and on-demand pages use the same values whatever the environment of the process rendering them.
import type { PublicConfig } from './site-config.ts';

declare const __SITE_CONFIG__: PublicConfig;
declare const __EDITORS_PREVIEW__: boolean;

export const config: PublicConfig = __SITE_CONFIG__;

/** Whether the pages are rendered for the editors' preview (`npm run dev`), which shows drafts and scheduled articles. */
export const editorsPreview: boolean = __EDITORS_PREVIEW__;
