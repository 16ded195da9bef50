/// <reference path="../.astro/types.d.ts" />

declare namespace App {
  interface Locals extends import('./lib/live-content.ts').LiveLocals {}
}
