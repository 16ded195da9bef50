// Intl.DateTimeFormat made once for each locale and set of options, and used again: making one costs about 60 µs on
// this machine kind and using one about 1 µs, and a page says dates and times many times over (a business's week of
// hours, every article in a list of the blog). Formatters never change once made, so sharing them is safe; the
// options are the code's own and the zones are checked IANA names (place.ts isTimeZone), and the cache is bounded
// besides.
const made = new Map<string, Intl.DateTimeFormat>();
/** Far more than the locales, zones and forms the pages use; reached only by a process that meets every zone. */
const LIMIT = 2_000;

/** `new Intl.DateTimeFormat(locale, options)`, made once. */
export function dateFormat(locale: string | undefined, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale ?? ''}\u0000${JSON.stringify(options)}`;
  let format = made.get(key);
  if (!format) {
    format = new Intl.DateTimeFormat(locale, options);
    if (made.size >= LIMIT) made.clear();
    made.set(key, format);
  }
  return format;
}
