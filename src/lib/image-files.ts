// Owners' images (avatars and card photos): their files' names, sizes and formats. Taken in once by the import
// (sidecar/store/image-intake.ts), cut to square sizes in a modern format and a fallback, and named by a hash of the
// bytes they were made from, so that a URL never changes what it shows (cached immutable everywhere) and a new
// image is a new URL. The one owner of the names, sizes and formats: the import, the image route, the pages'
// srcset, the structured data, the vCard's inline photo and the link-preview pictures all read them here.
/** An image's identifier: 32 hexadecimal digits of the SHA-256 of the bytes it was made from (and the intake's version). */
export const IMAGE_ID_PATTERN = /^[0-9a-f]{32}$/;

/** The square sizes each image is cut to, in pixels: the pages show 96 CSS pixels at 1×, 2× and 4×. */
export const IMAGE_WIDTHS = [96, 192, 384] as const;
export type ImageWidth = (typeof IMAGE_WIDTHS)[number];

/** The formats each size is kept in: WebP for every browser that reads it, JPEG for the rest (and contacts apps). */
export const IMAGE_FORMATS = { webp: 'image/webp', jpg: 'image/jpeg' } as const;
export type ImageFormat = keyof typeof IMAGE_FORMATS;

/** The pages' size of an avatar or photo, in CSS pixels. */
export const IMAGE_DISPLAY = 96;

/** The size the vCard carries inline (a contact's photo: about 10 KB of JPEG, 14 KB as base64). */
export const VCARD_PHOTO_WIDTH: ImageWidth = 192;
/** The size a link-preview picture draws the avatar from. */
export const OG_PHOTO_WIDTH: ImageWidth = 384;

/**
 * The widths a theme's background image (issue 49) is cut to, its shape kept: a phone's screen at 2×, a wide one. Served
 * in WebP (the stylesheet names it; every browser that applies the theme reads it) and JPEG.
 */
export const BACKDROP_WIDTHS = [800, 1600] as const;
export type BackdropWidth = (typeof BACKDROP_WIDTHS)[number];

/** A file of a background image: `0123…cdef-w1600.webp`. */
export function backdropFile(id: string, width: BackdropWidth, format: ImageFormat): string {
  return `${id}-w${width}.${format}`;
}

/** A file of an image: `0123…cdef-192.webp`, what the image route serves. */
export function imageFile(id: string, width: ImageWidth, format: ImageFormat): string {
  return `${id}-${width}.${format}`;
}

/** The route's pattern of a file's name (a route parameter): an identifier, a width, a format. */
export const IMAGE_FILE_PATTERN = new RegExp(
  `^[0-9a-f]{32}-(?:${[...IMAGE_WIDTHS, ...BACKDROP_WIDTHS.map((w) => `w${w}`)].join('|')})\\.(?:${Object.keys(IMAGE_FORMATS).join('|')})$`,
);

/** The media type of an image file's name, or undefined when it names no image file. */
export function imageFileType(file: string): string | undefined {
  if (!IMAGE_FILE_PATTERN.test(file)) return undefined;
  return IMAGE_FORMATS[file.slice(file.lastIndexOf('.') + 1) as ImageFormat];
}
