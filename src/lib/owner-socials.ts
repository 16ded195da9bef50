// An owner's links to their social networks as a page shows them (a profile's, and a card's: issue 49): each with
// its network's name and icon, and only those whose address is a web address a page may link.
import { safeHref, WEB_SCHEMES } from './owner-input.ts';
import { networkIconPath } from './social-icons.ts';
import { networkName } from './social-networks.ts';

export interface ShownSocial {
  network: string;
  name: string;
  /** The icon's SVG path (24 × 24). */
  icon: string;
  href: string;
}

export function shownSocials(socials: readonly { network: string; url: string }[]): ShownSocial[] {
  return socials.flatMap((s) => {
    const href = safeHref(s.url, WEB_SCHEMES);
    return href ? [{ network: s.network, name: networkName(s.network), icon: networkIconPath(s.network), href }] : [];
  });
}
