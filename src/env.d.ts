/// <reference path="../.astro/types.d.ts" />

declare namespace App {
  type LiveLocals = import('./lib/live-content.ts').LiveLocals;
  interface Locals extends LiveLocals {}
}
