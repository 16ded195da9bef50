// Types for two small CommonJS packages that ship none (or ship them under another module name).
declare module '@mixmark-io/domino' {
  export function createDocument(html?: string, force?: boolean): Document;
}

declare module '@joplin/turndown-plugin-gfm' {
  import type TurndownService from 'turndown';
  export const gfm: TurndownService.Plugin;
  export const tables: TurndownService.Plugin;
}

// qrcode's own capacity tables (ISO/IEC 18004), which the library chooses a version by: a code's version is known
// from its length without drawing it.
declare module 'qrcode/lib/core/version.js' {
  export function getCapacity(version: number, errorCorrectionLevel: unknown, mode?: unknown): number;
}
declare module 'qrcode/lib/core/mode.js' {
  export const BYTE: unknown;
}
declare module 'qrcode/lib/core/error-correction-level.js' {
  export const M: unknown;
}
