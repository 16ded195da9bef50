// Types for two small CommonJS packages that ship none (or ship them under another module name).
declare module '@mixmark-io/domino' {
  export function createDocument(html?: string, force?: boolean): Document;
}

declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
}
