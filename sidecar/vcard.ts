// vCard 3.0 (RFC 2426) of a digital card. Written here because the npm vCard writers we tried neither escape
// values nor fold lines: this does both, folding at 75 octets without splitting a UTF-8 character. The tests read
// every vCard back with an independent parser (ical.js).
import { cardAddresses, whatsappChats, type Card, type CardEmail, type CardPhone } from '../src/lib/live-content.ts';
import { shownSocials } from '../src/lib/owner-socials.ts';
import { safeHref, WEB_SCHEMES } from '../src/lib/owner-input.ts';
import { pathOf } from '../src/lib/surface.ts';
import { qrVersion } from './render/qr.ts';

const CRLF = '\r\n';

/** RFC 2426 §4: backslash, comma, semicolon and newline are escaped in text values. */
export function escapeText(value: string): string {
  return value
    .replace(/\\/g, '\\\\')
    .replace(/;/g, '\\;')
    .replace(/,/g, '\\,')
    .replace(/\r\n|\r|\n/g, '\\n');
}

/** Folds a content line into chunks of at most 75 octets; continuation lines start with one space. */
export function foldLine(line: string): string {
  const out: string[] = [];
  let current = '';
  let octets = 0;
  for (const ch of line) {
    const size = Buffer.byteLength(ch);
    const limit = out.length === 0 ? 75 : 74; // the leading space of a continuation counts
    if (octets + size > limit) {
      out.push(current);
      current = '';
      octets = 0;
    }
    current += ch;
    octets += size;
  }
  out.push(current);
  return out.join(CRLF + ' ');
}

/** Family name and given names: the last word is the family name, the rest given names. */
function splitName(full: string): { family: string; given: string } {
  const words = full.trim().split(/\s+/);
  if (words.length < 2) return { family: '', given: words[0] ?? '' };
  return { family: words.at(-1) ?? '', given: words.slice(0, -1).join(' ') };
}

const TEL_TYPES: Record<CardPhone['type'], string> = {
  cell: 'CELL,VOICE',
  work: 'WORK,VOICE',
  home: 'HOME,VOICE',
  landline: 'VOICE',
  phone: 'VOICE',
};
const EMAIL_TYPES: Record<CardEmail['type'], string> = { work: 'INTERNET,WORK', home: 'INTERNET,HOME' };

/** Where the card and its owner's profile live: the canonical absolute URLs. */
export interface CardUrls {
  card: string;
  profile?: string | undefined;
}

export function cardUrlsOf(baseUrl: string, card: Card): CardUrls {
  // At their homes: an owner's own domain where the card or the profile lives there (owner-domains.ts).
  const { url } = cardAddresses(baseUrl, card);
  return {
    card: url(pathOf('getDigitalCard', { cardId: card.cardId })),
    profile: card.profileSlug ? url(pathOf('getProfilePage', { page: card.profileSlug })) : undefined,
  };
}

/**
 * The card as a vCard 3.0 for "Save contact": every phone and e-mail with its type, the photo inline (`photo`: a small
 * JPEG, base64, the one form iOS and Android contacts apps show; neither fetches a URI), the website
 * and the profile as URLs, the card page as SOURCE. `compact` is the offline contact code's payload: only N, FN,
 * TEL, EMAIL, ORG, TITLE and one URL, so that the QR code stays small enough to scan from a phone screen.
 */
export function cardToVcard(
  card: Card,
  urls: CardUrls,
  {
    compact = false,
    structuredName = true,
    otherLanguage = true,
    photo,
  }: { compact?: boolean; structuredName?: boolean; otherLanguage?: boolean; photo?: Uint8Array | undefined } = {},
): string {
  const lines: string[] = ['BEGIN:VCARD', 'VERSION:3.0'];
  const add = (name: string, value: string | null | undefined, raw = false) => {
    if (value && value.trim()) lines.push(`${name}:${raw ? value : escapeText(value.trim())}`);
  };
  const fn = card.name ?? card.organization ?? card.cardId;
  if (card.name && structuredName) {
    const { family, given } = splitName(card.name);
    lines.push(`N:${escapeText(family)};${escapeText(given)};;;`);
  } else {
    lines.push('N:;;;;');
  }
  add('FN', fn);
  add('ORG', card.organization);
  if (otherLanguage) {
    // The name and organisation in the card's other language (Arabic script beside Latin, or the reverse), where the
    // owner translated them: as the phonetic name and organisation, which iOS Contacts shows under the name and
    // searches, and Android's importer (AOSP VCardEntry) keeps as the name's phonetic parts, shown and searched too.
    // Both apps keep one ORG: a second would be dropped or split into another contact's.
    const other = otherLanguageOf(card);
    if (other?.name && other.name !== card.name) {
      const { family, given } = splitName(other.name);
      add('X-PHONETIC-FIRST-NAME', given);
      add('X-PHONETIC-LAST-NAME', family);
    }
    if (other?.organization && other.organization !== card.organization) add('X-PHONETIC-ORG', other.organization);
  }
  add('TITLE', card.jobTitle);
  // The title and organisation in the card's other language (issue 62): both apps keep one TITLE and one ORG, and
  // show a NOTE whole, so the other language's are said there, as one line.
  const translated = otherLanguage && !compact ? otherLanguageOf(card) : undefined;
  const role = [translated?.jobTitle, translated?.organization].filter(
    (part, i) => part && part !== [card.jobTitle, card.organization][i],
  );
  if (role.length > 0) add('NOTE', role.join(' · '));
  for (const phone of card.phones) add(`TEL;TYPE=${TEL_TYPES[phone.type]}`, phone.number);
  for (const email of card.emails) add(`EMAIL;TYPE=${EMAIL_TYPES[email.type]}`, email.address);
  // URIs are emitted normalised (all ASCII, no whitespace): a stored value with a line break cannot add a property.
  const website = safeHref(card.website, WEB_SCHEMES);
  if (compact) {
    // The essentials (no website) carry the card itself: everything else is one tap away.
    add('URL', website ?? urls.card, true);
  } else {
    add('URL', website, true);
    add('URL', urls.profile, true);
    // The card's WhatsApp chats and social networks (issue 62), each a URL labelled with its network's name as Apple's
    // Contacts writes one (a group `itemN`: the URL and its X-ABLabel), which iOS shows as "WhatsApp", "LinkedIn" and
    // keeps one entry each. Android's importer (AOSP com.android.vcard VCardEntry) keeps every URL as a website and
    // drops the label, and reads neither X-SOCIALPROFILE nor an IMPP other than sip:, so a URL is what both keep.
    const labelled = [
      ...whatsappChats(card.phones).map((chat) => ({ name: 'WhatsApp', href: chat.href })),
      ...shownSocials(card.socials),
    ];
    labelled.forEach(({ name, href }, i) => {
      lines.push(`item${String(i + 1)}.URL:${href}`);
      lines.push(`item${String(i + 1)}.X-ABLabel:${escapeText(name)}`);
    });
    if (card.address?.trim()) lines.push(`ADR;TYPE=WORK:;;${escapeText(card.address.trim())};;;;`);
    if (photo) lines.push(`PHOTO;ENCODING=b;TYPE=JPEG:${Buffer.from(photo).toString('base64')}`);
    add('SOURCE', urls.card, true);
    lines.push(`REV:${card.updatedAt}`);
  }
  lines.push('END:VCARD');
  return lines.map(foldLine).join(CRLF) + CRLF;
}

/** The card's name and organisation in its other language, as translated (the site has two languages). */
function otherLanguageOf(card: Card): { name?: string; organization?: string; jobTitle?: string } | undefined {
  const lang = Object.keys(card.translations).find((l) => l !== card.lang) as keyof Card['translations'] | undefined;
  return lang && card.translations[lang];
}

/**
 * The largest offline contact code: version 15 is 77 modules a side (85 with the quiet zone). Shown at the page's
 * 240 CSS pixels that is 2.8 a module, about 8 device pixels on a phone; printed 2.5 cm wide, 0.29 mm a module, above
 * the quarter millimetre phone cameras read at arm's length. A full card (five phones, five e-mails, long title,
 * organisation and address) needs version 27 or more: 1.8 CSS pixels a module, too fine to scan from a screen.
 */
const MAX_CONTACT_QR_VERSION = 15;

/**
 * What the offline contact code holds: the compact vCard when it fits in MAX_CONTACT_QR_VERSION, else the essentials
 * (the name, the first phone and e-mail, the card's URL, so the rest is one tap away), dropping the structured name,
 * then the e-mail, then the phone until it fits; `short` says it is not the whole compact vCard. Whatever the owner
 * wrote, the last candidate fits (a name of at most 80 characters and our own URL).
 */
export function contactCode(
  card: Card,
  urls: CardUrls,
  fits = (text: string) => qrVersion(text) <= MAX_CONTACT_QR_VERSION,
): { text: string; short: boolean } {
  const full = cardToVcard(card, urls, { compact: true });
  if (fits(full)) return { text: full, short: false };
  // The other language's name goes first: the contact is whole without it.
  const oneLanguage = cardToVcard(card, urls, { compact: true, otherLanguage: false });
  if (fits(oneLanguage)) return { text: oneLanguage, short: false };
  const phone = card.phones.slice(0, 1);
  const email = card.emails.slice(0, 1);
  const essentials: Card[] = [
    { ...card, jobTitle: null, organization: null, website: null, phones: phone, emails: email },
    { ...card, jobTitle: null, organization: null, website: null, phones: phone, emails: [] },
    { ...card, jobTitle: null, organization: null, website: null, phones: [], emails: [] },
  ];
  for (const candidate of essentials) {
    for (const structuredName of [true, false]) {
      const text = cardToVcard(candidate, urls, { compact: true, structuredName, otherLanguage: false });
      if (fits(text)) return { text, short: true };
    }
  }
  return { text: urls.card, short: true };
}

/** The ASCII fallback file name of a card's vCard. */
export function vcardFileName(card: Card): string {
  const ascii = trimHyphens((card.name ?? '').normalize('NFKD').replace(/[^a-z\d]+/gi, '-')).toLowerCase();
  return `${ascii || card.cardId}.vcf`;
}

/** `text` without the hyphens it starts and ends with (one pass each way: no pattern tries every start in a run). */
function trimHyphens(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && text[start] === '-') start++;
  while (end > start && text[end - 1] === '-') end--;
  return text.slice(start, end);
}
