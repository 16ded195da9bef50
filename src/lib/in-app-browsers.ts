// The apps a link in a bio opens inside (issue 63), and what works in each one's browser: the way out to the visitor's
// own browser on iOS and on Android, and whether a download (the card's "Save contact", a vCard) arrives. Which app a
// page is open in is told by `inapp-spy` (its user-agent rules, kept up to date as the apps change them), in the
// page's script (src/scripts/in-app.ts); this table is what the page then offers. The same bytes for every visitor:
// nothing here is decided on the server, so no cache varies on the user agent.
//
// Sources, for a reviewer:
// - [D] inappdebugger.com's results table (github.com/shalanah/inapp-debugger, README, "Results from Mobile App Tests",
//   Android and iPhone, last updated October and November 2024): each app's download of a static file and of a blob,
//   the Android intent link `intent://host/path#Intent;scheme=https;end` and iOS's `x-safari-https://host/path`.
// - [I] issue 63 (late 2026): `instagram://extbrowser/?url=…` broke on iOS 26.4 and works again in Instagram 445 on
//   iOS 27 and Android 16.
// Where [D] says an app opens links in the system's browser tab on Android (Snapchat, LinkedIn, X) that app is no
// in-app browser there, and nothing is offered.

/** The app keys `inapp-spy` names. */
export type InAppKey =
  | 'instagram'
  | 'facebook'
  | 'messenger'
  | 'tiktok'
  | 'snapchat'
  | 'linkedin'
  | 'twitter'
  | 'threads'
  | 'wechat'
  | 'line'
  | 'telegram'
  | 'gsa';

export type Platform = 'ios' | 'android';

/**
 * How a page leaves an app for the visitor's own browser: `intent` (Android: the system's default browser), `safari`
 * (iOS: Safari, the only browser a scheme can name on every iPhone), `instagram` (Instagram's own way out, [I]).
 * `none`: no link that works is known; the visitor is told to use the app's menu. `browser`: the app already opens
 * links in the visitor's browser (a custom tab), so nothing is shown.
 */
export type Way = 'intent' | 'safari' | 'instagram' | 'none' | 'browser';

export interface InAppBrowser {
  /** As people know the app (a brand: written in Latin letters in both languages). */
  name: string;
  out: Record<Platform, Way>;
  /** Whether a download (a vCard) arrives there, [D]'s "static asset download". */
  downloads: Record<Platform, boolean>;
}

export const IN_APP_BROWSERS: Record<InAppKey, InAppBrowser> = {
  instagram: {
    name: 'Instagram',
    out: { ios: 'instagram', android: 'instagram' },
    downloads: { ios: false, android: false },
  },
  facebook: { name: 'Facebook', out: { ios: 'safari', android: 'intent' }, downloads: { ios: false, android: false } },
  messenger: { name: 'Messenger', out: { ios: 'safari', android: 'none' }, downloads: { ios: false, android: false } },
  tiktok: { name: 'TikTok', out: { ios: 'safari', android: 'none' }, downloads: { ios: false, android: false } },
  snapchat: { name: 'Snapchat', out: { ios: 'none', android: 'browser' }, downloads: { ios: false, android: true } },
  linkedin: { name: 'LinkedIn', out: { ios: 'safari', android: 'browser' }, downloads: { ios: false, android: true } },
  twitter: { name: 'X', out: { ios: 'safari', android: 'browser' }, downloads: { ios: false, android: true } },
  threads: { name: 'Threads', out: { ios: 'safari', android: 'none' }, downloads: { ios: false, android: false } },
  wechat: { name: 'WeChat', out: { ios: 'none', android: 'none' }, downloads: { ios: false, android: false } },
  line: { name: 'LINE', out: { ios: 'safari', android: 'intent' }, downloads: { ios: false, android: false } },
  telegram: { name: 'Telegram', out: { ios: 'safari', android: 'intent' }, downloads: { ios: true, android: true } },
  gsa: { name: 'Google', out: { ios: 'safari', android: 'browser' }, downloads: { ios: true, android: true } },
};

/**
 * The app a page is open in, from what `inapp-spy` said (`key`), the user agent and what the app's browser adds to the
 * page (`globals`: the names `window` has), or undefined when it is not one this table names. Two corrections, each
 * found by a reviewer with the apps' user agents:
 * - inapp-spy 5.0.10 names Messenger any Facebook user agent without `IABMV` (its rule for Messenger's newer ones), and
 *   Facebook's own app still sends such (`[FB_IAB/FB4A;FBAV/…;]`, `[FBAN/FBIOS;…]`): the app's own marks say Facebook.
 * - It looks for Telegram's objects only when the user agent says nothing, but Telegram's browser is a web view (its
 *   user agent says that much), so it never did: they are looked for here first, with Telegram's Android mark.
 */
export function appOf(
  key: string | undefined,
  userAgent: string,
  globals: (name: string) => boolean,
): InAppKey | undefined {
  if (
    ['TelegramWebview', 'TelegramWebviewProxy', 'TelegramWebviewProxyProto'].some(globals) ||
    /\bTelegram-Android\//.test(userAgent)
  )
    return 'telegram';
  if (key === 'messenger' && /\bFB_IAB\/FB4A\b|\bFBAN\/FBIOS\b/.test(userAgent)) return 'facebook';
  return key !== undefined && Object.hasOwn(IN_APP_BROWSERS, key) ? (key as InAppKey) : undefined;
}

/** The platform a user agent names; Android when it says so, iOS for an iPhone, iPad or iPod, else undefined. */
export function platformOf(userAgent: string): Platform | undefined {
  if (/\bAndroid\b/i.test(userAgent)) return 'android';
  if (/\b(iPhone|iPad|iPod)\b/.test(userAgent)) return 'ios';
  return undefined;
}

/** The link that opens `url` (an absolute http(s) URL) in the visitor's own browser, or undefined where none works. */
export function wayOut(way: Way, url: string): string | undefined {
  const target = new URL(url);
  const rest = `${target.host}${target.pathname}${target.search}`;
  switch (way) {
    case 'intent':
      return `intent://${rest}#Intent;scheme=${target.protocol.slice(0, -1)};action=android.intent.action.VIEW;end`;
    case 'safari':
      return `x-safari-${target.protocol.slice(0, -1)}://${rest}`;
    case 'instagram':
      return `instagram://extbrowser/?url=${encodeURIComponent(target.href)}`;
    default:
      return undefined;
  }
}

/** The page a way-out link opens (the test's check that it is the page itself), or undefined when it is not one. */
export function targetOf(link: string): string | undefined {
  const intent = /^intent:\/\/([^#]*)#Intent;(?:.*;)?scheme=(https?);/.exec(link);
  if (intent) return `${intent[2]}://${intent[1]}`;
  const safari = /^x-safari-(https?):\/\/(.*)$/.exec(link);
  if (safari) return `${safari[1]}://${safari[2]}`;
  const instagram = /^instagram:\/\/extbrowser\/\?url=(.*)$/.exec(link);
  if (instagram) return decodeURIComponent(instagram[1]!);
  return undefined;
}
