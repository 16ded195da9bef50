// The configuration the pages are built for, embedded at build time (astro.config.mjs defines __SITE_CONFIG__),
// so that prerendered and on-demand pages use the same values whatever the environment of the process rendering them.
import type { PublicConfig } from './site-config.ts';

declare const __SITE_CONFIG__: PublicConfig;

export const config: PublicConfig = __SITE_CONFIG__;
