// Icons of the known social networks, from simple-icons (CC0-1.0; each mark stays its owner's trademark), inlined
// into the page as SVG paths: nothing is fetched from another host. Every network of the list has its own (the type
// says so: LinkedIn, whose mark the set removed at its request, a briefcase of ours); a network the list does not know
// gets the generic link icon. Only these icons reach the page bundle.
import {
  siBehance,
  siBluesky,
  siDiscord,
  siDribbble,
  siFacebook,
  siGithub,
  siGitlab,
  siGooglemaps,
  siInstagram,
  siKick,
  siMastodon,
  siMedium,
  siOpenstreetmap,
  siPatreon,
  siPinterest,
  siReddit,
  siSnapchat,
  siSoundcloud,
  siSpotify,
  siSubstack,
  siTelegram,
  siThreads,
  siTiktok,
  siTripadvisor,
  siTwitch,
  siVimeo,
  siWhatsapp,
  siX,
  siYelp,
  siYoutube,
} from 'simple-icons';
import type { SOCIAL_NETWORKS } from './social-networks.ts';

/** A 24×24 chain link (drawn for this project, under the project's licence). */
export const GENERIC_LINK_ICON =
  'M10.6 13.4a1 1 0 0 1 0-1.4l3.5-3.5a1 1 0 1 1 1.4 1.4L12 13.4a1 1 0 0 1-1.4 0zM8.1 19.9a4.5 4.5 0 0 1-3.2-7.7l2.5-2.5a1 1 0 1 1 1.4 1.4l-2.5 2.5a2.5 2.5 0 0 0 3.5 3.5l2.5-2.5a1 1 0 1 1 1.4 1.4l-2.5 2.5a4.5 4.5 0 0 1-3.1 1.4zm7.9-5.2a1 1 0 0 1-.7-1.7l2.5-2.5a2.5 2.5 0 1 0-3.5-3.5l-2.5 2.5a1 1 0 1 1-1.4-1.4l2.5-2.5a4.5 4.5 0 1 1 6.4 6.4l-2.5 2.5a1 1 0 0 1-.8.2z';

/**
 * LinkedIn's own (issue 62): LinkedIn asked simple-icons to remove its mark, so it is drawn as what it is, a
 * briefcase (drawn for this project, under the project's licence), not as the generic link every unknown network gets.
 */
const BRIEFCASE_ICON =
  'M9 3h6a2 2 0 0 1 2 2v1h3a2 2 0 0 1 2 2v10a2 2 0 0 1-2 2H4a2 2 0 0 1-2-2V8a2 2 0 0 1 2-2h3V5a2 2 0 0 1 2-2zm0 3h6V5H9v1zM4 8v3h16V8H4zm0 5v5h16v-5h-6v1h-4v-1H4z';

const ICONS: Record<keyof typeof SOCIAL_NETWORKS, { path: string }> = {
  linkedin: { path: BRIEFCASE_ICON },
  x: siX,
  twitter: siX,
  instagram: siInstagram,
  facebook: siFacebook,
  whatsapp: siWhatsapp,
  telegram: siTelegram,
  youtube: siYoutube,
  tiktok: siTiktok,
  snapchat: siSnapchat,
  threads: siThreads,
  github: siGithub,
  gitlab: siGitlab,
  behance: siBehance,
  dribbble: siDribbble,
  pinterest: siPinterest,
  reddit: siReddit,
  discord: siDiscord,
  twitch: siTwitch,
  mastodon: siMastodon,
  bluesky: siBluesky,
  medium: siMedium,
  substack: siSubstack,
  soundcloud: siSoundcloud,
  spotify: siSpotify,
  vimeo: siVimeo,
  kick: siKick,
  patreon: siPatreon,
  googlemaps: siGooglemaps,
  openstreetmap: siOpenstreetmap,
  tripadvisor: siTripadvisor,
  yelp: siYelp,
};

/** The SVG path (24×24 view box) of a network's icon, or the generic link icon. */
export function networkIconPath(id: string): string {
  return (Object.hasOwn(ICONS, id) ? ICONS[id as keyof typeof ICONS]?.path : undefined) ?? GENERIC_LINK_ICON;
}
