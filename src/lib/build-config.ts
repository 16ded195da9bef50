// The configuration the static pages are built with (Astro evaluates this once per build).
import { loadConfig } from './site-config.ts';

export const config = loadConfig();
