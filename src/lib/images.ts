// Owners' images on this site's pages: the path of each file (the image route) and what an <img> needs for them.
// Names, sizes and formats: image-files.ts.
import {
  IMAGE_DISPLAY,
  IMAGE_WIDTHS,
  imageFile,
  OG_PHOTO_WIDTH,
  type ImageFormat,
  type ImageWidth,
} from './image-files.ts';
import { pathOf } from './surface.ts';
import { absoluteUrl } from './urls.ts';

/** The path of an image's file on this site. */
function imagePath(id: string, width: ImageWidth, format: ImageFormat): string {
  return pathOf('getImage', { image: imageFile(id, width, format) });
}

/** What an `<img>` and its `<source>` need: every width in each format, the fallback's `src`, the display size. */
export function imageSources(id: string): {
  src: string;
  srcset: string;
  webpSrcset: string;
  sizes: string;
  size: number;
} {
  const set = (format: ImageFormat) => IMAGE_WIDTHS.map((w) => `${imagePath(id, w, format)} ${w}w`).join(', ');
  return {
    src: imagePath(id, 192, 'jpg'),
    srcset: set('jpg'),
    webpSrcset: set('webp'),
    sizes: `${IMAGE_DISPLAY}px`,
    size: IMAGE_DISPLAY,
  };
}

/**
 * A small picture's files (issue 49: a link's thumbnail, shown at `THUMBNAIL_DISPLAY` CSS pixels, a card's logo at
 * `LOGO_DISPLAY`): its smallest file in each format, at least twice the size shown.
 */
export const THUMBNAIL_DISPLAY = 40;
export const LOGO_DISPLAY = 48;
export function smallImageSources(id: string): { src: string; webp: string } {
  return { src: imagePath(id, 96, 'jpg'), webp: imagePath(id, 96, 'webp') };
}

/** The address of an image for documents read elsewhere (structured data): its largest JPEG, absolute. */
export function imageUrl(baseUrl: string, id: string): string {
  return absoluteUrl(baseUrl, imagePath(id, OG_PHOTO_WIDTH, 'jpg'));
}
