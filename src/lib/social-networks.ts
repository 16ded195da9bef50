// The social networks a profile may link, by the id an import uses, with the name people know them by. An id that
// is not listed still works: the page shows the id itself.

export const SOCIAL_NETWORKS = {
  x: 'X',
  twitter: 'X (Twitter)',
  instagram: 'Instagram',
  facebook: 'Facebook',
  whatsapp: 'WhatsApp',
  telegram: 'Telegram',
  linkedin: 'LinkedIn',
  youtube: 'YouTube',
  tiktok: 'TikTok',
  snapchat: 'Snapchat',
  threads: 'Threads',
  github: 'GitHub',
  gitlab: 'GitLab',
  behance: 'Behance',
  dribbble: 'Dribbble',
  pinterest: 'Pinterest',
  reddit: 'Reddit',
  discord: 'Discord',
  twitch: 'Twitch',
  mastodon: 'Mastodon',
  bluesky: 'Bluesky',
  medium: 'Medium',
  substack: 'Substack',
  soundcloud: 'SoundCloud',
  spotify: 'Spotify',
  vimeo: 'Vimeo',
  kick: 'Kick',
  patreon: 'Patreon',
  // A business's place and reviews (issue 49: a `googlemaps` social showed its id and a generic icon).
  googlemaps: 'Google Maps',
  openstreetmap: 'OpenStreetMap',
  tripadvisor: 'Tripadvisor',
  yelp: 'Yelp',
} as const satisfies Record<string, string>;

/** An import's network id: lowercase letters and digits, as short as X's. */
export const NETWORK_ID_PATTERN = /^[a-z0-9]{1,30}$/;

/** The name to show for a network id: its proper name when known, else the id as the owner gave it. */
export function networkName(id: string): string {
  return Object.hasOwn(SOCIAL_NETWORKS, id) ? SOCIAL_NETWORKS[id as keyof typeof SOCIAL_NETWORKS] : id;
}
