// The typed UI dictionary: every string a page shows outside of content, one dictionary per language of the locale
// table (locales.ts), in that language. The compiler refuses a language without its dictionary.
import type { Lang } from './locales.ts';

const en = {
  skipToContent: 'Skip to content',
  /** An owner's page's foot: the owner's choice for AI use of it (issue 63; ai-preferences.ts), label by label. */
  aiUse: {
    heading: 'AI use of this page',
    search: 'search',
    'train-ai': 'training AI models',
    yes: 'allowed',
    no: 'not allowed',
    separator: '; ',
  },
  homeTitle: 'Link-in-bio pages and digital business cards',
  homeDescription:
    'One page for all your links and a business card that opens on any phone, in Arabic or English. Readable by people and by AI agents.',
  homeIntro:
    'Creators and businesses publish one public page with all their links, and a digital business card that opens the moment someone scans its QR code or taps its NFC chip.',
  homeFeatures: [
    'Profiles at /p/your-name, readable right-to-left or left-to-right',
    'Digital business cards at /c/card-id with a “Save contact” button',
    'Every page also available as clean Markdown for AI agents',
    'A read-only MCP server and documented discovery endpoints',
  ],
  featuresHeading: 'What you get',
  blogHeading: 'From the blog',
  readBlog: 'Read the English blog',
  agentsHeading: 'For developers and AI agents',
  agentsText:
    'Everything public here can be read without an account. Start with the API documentation, the API catalog or the Markdown version of any page.',
  apiDocs: 'API documentation',
  blogTitle: 'Blog',
  blogDescription: 'Guides on link-in-bio pages, digital business cards, privacy and how AI agents read the web.',
  published: 'Published',
  updated: 'Updated',
  rss: 'RSS feed',
  readThisArticle: 'Read this article in English',
  backToBlog: 'All articles',
  notFoundTitle: 'Page not found',
  notFoundText: 'We could not find this page. It may have moved, or the link may be mistyped.',
  goHome: 'Go to the homepage',
  markdownVersion: 'Markdown version',
  footerNote: 'Public pages are read-only. Owners sign in at',
  mainNav: 'Main',
  tags: 'Tags',
  errorTitle: 'Something went wrong',
  errorText:
    'This page could not be shown because of an error on our side. It has been logged; please try again later.',
  unavailableTitle: 'Temporarily unavailable',
  unavailableText: 'This page cannot be shown right now. Please try again in a minute.',
  links: 'Links',
  pinned: 'Pinned',
  saveContact: 'Save contact',
  call: 'Call',
  whatsapp: 'WhatsApp',
  email: 'E-mail',
  website: 'Website',
  address: 'Address',
  viewProfile: 'See all links',
  phoneTypes: { cell: 'Mobile', work: 'Work', home: 'Home', landline: 'Landline', phone: '' },
  emailTypes: { work: 'Work', home: 'Personal' },
  // What the owner says on their own page, by who they are (live-content.ts Voice): a person "I", an organisation "we".
  elsewhere: { person: 'Find me on', organization: 'Find us on' },
  showCode: { person: 'Show my code', organization: 'Show our code' },
  languages: 'Languages',
  // A place and its hours (issue 49).
  placeHeading: { person: 'Where to find me', organization: 'Where to find us' },
  openingHours: 'Opening hours',
  day: 'Day',
  hours: 'Hours',
  openNow: 'Open now',
  closedNow: 'Closed now',
  closesAt: 'closes at {time}',
  opensAt: 'opens at {time}',
  opensOn: 'opens {day} at {time}',
  opensOnDate: 'opens {day} {date} at {time}',
  // A day whose hours are not the week's (issue 62): its Hijri period, or "special hours" when the owner named none.
  specialPeriods: { ramadan: 'Ramadan hours', 'eid-al-fitr': 'Eid al-Fitr', 'eid-al-adha': 'Eid al-Adha' },
  specialHours: 'Special hours',
  // For agents (the Markdown twin and MCP only): what "open now" was said for, and how long it holds (issue 62).
  hoursAsOf: 'Hours in {zone} time. Open or closed as of {moment}; that holds until {until}.',
  // A business's first taps, at the top of its page (issue 62).
  firstTaps: 'Contact and directions',
  directions: 'Directions',
  openAllDay: 'open around the clock',
  closedAllDay: 'Closed',
  openInMaps: 'Open in your maps app',
  logoOf: 'Logo of {name}',
  wholeDay: 'Open 24 hours',
  photoOf: 'Photo of {name}',
  /** Between the items of a short list written inline. */
  listComma: ', ',
  pageCode: 'Scan to open this page',
  contactCode: 'Scan to save the contact, no internet needed',
  contactCodeShort:
    'Scan to save a short version of the contact (name, phone, e-mail and this card’s link), no internet needed',
  pageCodeAlt: 'QR code of this page',
  contactCodeAlt: 'QR code holding the contact details',
  downloadCode: 'Download for printing (SVG)',
  // A page opened inside another app's browser (issue 63, src/scripts/in-app.ts): {app} is the app's name.
  inApp: {
    saysOut: 'You opened this page inside {app}. Some things work better in your own browser.',
    saysMenu:
      'You opened this page inside {app}. To open it in your own browser, use {app}’s menu and choose to open it in the browser.',
    open: 'Open in your browser',
    copyLink: 'Copy link',
    contactOut: 'Contacts cannot be saved inside {app}: “Save contact” opens the contact in your browser, or copy it.',
    contactMenu:
      'Contacts cannot be saved inside {app}: open this card in your browser from {app}’s menu to save it, or copy the contact.',
    copyContact: 'Copy contact',
    contactCopied: 'Contact copied',
  },
  share: 'Share',
  linkCopied: 'Link copied',
  contactCard: 'Contact card',
  profileDescription: 'Links and contact of',
  cardDescription: 'Digital business card of',
  readingTime: { one: '{n} minute read', other: '{n} minutes read' },
  articleCount: { one: '{n} article', other: '{n} articles' },
  pageOf: 'Page {n} of {count}',
  pages: 'Pages',
  newerArticles: 'Newer articles',
  olderArticles: 'Older articles',
  topics: 'Topics',
  topicsTitle: 'Topics',
  topicsDescription: 'Browse the blog by topic.',
  topicTitle: 'Articles on {topic}',
  topicDescription: 'Every article on {topic}, newest first.',
  topicInOtherLanguage: 'This topic in English',
  allTopics: 'All topics',
  contents: 'Contents',
  newerArticle: 'Newer article',
  olderArticle: 'Older article',
  relatedArticles: 'Related articles',
  moreArticles: 'More articles',
  jsonFeed: 'JSON feed',
  search: 'Search',
  searchTitle: 'Search the blog',
  searchDescription: 'Find articles in English by words in their title or text.',
  searchLabel: 'Words to find',
  searchButton: 'Search',
  searchNoScript:
    'Search works in the browser with JavaScript, which is off here. Browse the articles page by page or by topic instead.',
  searchNoResults: 'No article matches “{q}”.',
  searchResults: { one: '{n} article matches “{q}”.', other: '{n} articles match “{q}”.' },
  searchUnavailable: 'Search could not load. Browse the articles page by page or by topic instead.',
  /** What a person might ask an agent that this site's MCP server, and each agent skill, answers (the AI catalog). */
  agentQueries: {
    mcp: ["what links does this creator's profile page list", 'get the phone number from this digital business card'],
    'read-profiles-and-cards': ["open this creator's link-in-bio page", 'save the contact from this business card'],
    'read-the-blog': ['find blog articles about privacy', 'should I get a QR or an NFC business card'],
    'use-the-mcp-server': ['read a public profile through MCP', 'which MCP tools does this site offer'],
  },
} as const;

/** A string by plural category (Intl.PluralRules): `other` always, the language's other categories as it needs them. */
export type Plural = { other: string } & Partial<Record<Intl.LDMLPluralRule, string>>;

type Dictionary = {
  [K in keyof typeof en]: (typeof en)[K] extends readonly string[]
    ? readonly string[]
    : (typeof en)[K] extends string
      ? string
      : (typeof en)[K] extends { other: string }
        ? Plural
        : { [L in keyof (typeof en)[K]]: (typeof en)[K][L] extends readonly string[] ? readonly string[] : string };
};

const ar: Dictionary = {
  skipToContent: 'انتقل إلى المحتوى',
  aiUse: {
    heading: 'استخدام الذكاء الاصطناعي لهذه الصفحة',
    search: 'البحث',
    'train-ai': 'تدريب نماذج الذكاء الاصطناعي',
    yes: 'مسموح',
    no: 'غير مسموح',
    separator: '؛ ',
  },
  homeTitle: 'صفحات الروابط وبطاقات الأعمال الرقمية',
  homeDescription:
    'صفحة واحدة لكل روابطك وبطاقة أعمال تُفتح على أي هاتف، بالعربية أو الإنجليزية. يقرؤها الناس ووكلاء الذكاء الاصطناعي.',
  homeIntro:
    'ينشر صنّاع المحتوى والشركات صفحة عامة واحدة تجمع روابطهم، وبطاقة أعمال رقمية تُفتح فور مسح رمز QR أو لمس شريحة NFC.',
  homeFeatures: [
    'صفحات شخصية على /p/اسمك تُقرأ من اليمين إلى اليسار أو العكس',
    'بطاقات أعمال رقمية على /c/رقم-البطاقة مع زر «حفظ جهة الاتصال»',
    'كل صفحة متاحة أيضًا بصيغة Markdown نظيفة لوكلاء الذكاء الاصطناعي',
    'خادم MCP للقراءة فقط ونقاط اكتشاف موثّقة',
  ],
  featuresHeading: 'ماذا تحصل عليه',
  blogHeading: 'من المدونة',
  readBlog: 'اقرأ المدونة العربية',
  agentsHeading: 'للمطورين ووكلاء الذكاء الاصطناعي',
  agentsText:
    'كل ما هو عام هنا يمكن قراءته دون حساب. ابدأ بتوثيق الواجهة البرمجية أو فهرس الواجهات أو نسخة Markdown من أي صفحة.',
  apiDocs: 'توثيق الواجهة البرمجية',
  blogTitle: 'المدونة',
  blogDescription: 'أدلة عن صفحات الروابط وبطاقات الأعمال الرقمية والخصوصية وكيف يقرأ وكلاء الذكاء الاصطناعي الويب.',
  published: 'نُشر في',
  updated: 'حُدّث في',
  rss: 'موجز RSS',
  readThisArticle: 'اقرأ هذا المقال بالعربية',
  backToBlog: 'كل المقالات',
  notFoundTitle: 'الصفحة غير موجودة',
  notFoundText: 'لم نجد هذه الصفحة. ربما نُقلت، أو أن في الرابط خطأً.',
  goHome: 'اذهب إلى الصفحة الرئيسية',
  markdownVersion: 'نسخة Markdown',
  footerNote: 'الصفحات العامة للقراءة فقط. يسجّل أصحاب الحسابات الدخول من',
  mainNav: 'التنقل الرئيسي',
  tags: 'الوسوم',
  errorTitle: 'حدث خطأ ما',
  errorText: 'تعذّر عرض هذه الصفحة بسبب خطأ من جهتنا. سُجّل الخطأ؛ حاول مرة أخرى لاحقًا.',
  unavailableTitle: 'الخدمة غير متاحة مؤقتًا',
  unavailableText: 'تعذّر عرض هذه الصفحة الآن. حاول مرة أخرى بعد دقيقة.',
  links: 'الروابط',
  pinned: 'مثبّت',
  saveContact: 'حفظ جهة الاتصال',
  call: 'اتصال',
  whatsapp: 'واتساب',
  email: 'البريد الإلكتروني',
  website: 'الموقع',
  address: 'العنوان',
  viewProfile: 'كل الروابط',
  phoneTypes: { cell: 'جوال', work: 'العمل', home: 'المنزل', landline: 'هاتف ثابت', phone: '' },
  emailTypes: { work: 'العمل', home: 'شخصي' },
  elsewhere: { person: 'تجدني أيضًا على', organization: 'تجدنا أيضًا على' },
  showCode: { person: 'اعرض رمزي', organization: 'اعرض رمزنا' },
  languages: 'اللغات',
  placeHeading: { person: 'أين تجدني', organization: 'أين تجدنا' },
  openingHours: 'ساعات العمل',
  day: 'اليوم',
  hours: 'الساعات',
  openNow: 'مفتوح الآن',
  closedNow: 'مغلق الآن',
  closesAt: 'يغلق الساعة {time}',
  opensAt: 'يفتح الساعة {time}',
  opensOn: 'يفتح {day} الساعة {time}',
  opensOnDate: 'يفتح {day} {date} الساعة {time}',
  specialPeriods: { ramadan: 'ساعات رمضان', 'eid-al-fitr': 'عيد الفطر', 'eid-al-adha': 'عيد الأضحى' },
  specialHours: 'ساعات خاصة',
  hoursAsOf: 'الساعات بتوقيت {zone}. مفتوح أو مغلق كما في {moment}، ويبقى ذلك صحيحًا حتى {until}.',
  firstTaps: 'التواصل والاتجاهات',
  directions: 'الاتجاهات',
  openAllDay: 'مفتوح على مدار الساعة',
  closedAllDay: 'مغلق',
  openInMaps: 'افتح في تطبيق الخرائط',
  logoOf: 'شعار {name}',
  wholeDay: 'مفتوح ٢٤ ساعة',
  photoOf: 'صورة {name}',
  listComma: '، ',
  pageCode: 'امسح الرمز لفتح هذه الصفحة',
  contactCode: 'امسح الرمز لحفظ جهة الاتصال، دون حاجة إلى الإنترنت',
  contactCodeShort:
    'امسح الرمز لحفظ نسخة مختصرة من جهة الاتصال (الاسم والهاتف والبريد ورابط هذه البطاقة)، دون حاجة إلى الإنترنت',
  pageCodeAlt: 'رمز QR لهذه الصفحة',
  contactCodeAlt: 'رمز QR يحمل بيانات الاتصال',
  downloadCode: 'تنزيل للطباعة (SVG)',
  inApp: {
    saysOut: 'فتحت هذه الصفحة داخل {app}. بعض الأشياء تعمل أفضل في متصفحك.',
    saysMenu: 'فتحت هذه الصفحة داخل {app}. لفتحها في متصفحك، استخدم قائمة {app} واختر فتحها في المتصفح.',
    open: 'افتحها في متصفحك',
    copyLink: 'انسخ الرابط',
    contactOut: 'لا يمكن حفظ جهات الاتصال داخل {app}: «حفظ جهة الاتصال» يفتحها في متصفحك، أو انسخها.',
    contactMenu:
      'لا يمكن حفظ جهات الاتصال داخل {app}: افتح هذه البطاقة في متصفحك من قائمة {app} لحفظها، أو انسخ جهة الاتصال.',
    copyContact: 'انسخ جهة الاتصال',
    contactCopied: 'نُسخت جهة الاتصال',
  },
  share: 'مشاركة',
  linkCopied: 'نُسخ الرابط',
  contactCard: 'بطاقة تواصل',
  profileDescription: 'روابط ووسائل التواصل مع',
  cardDescription: 'بطاقة الأعمال الرقمية لـ',
  readingTime: {
    zero: '{n} دقيقة للقراءة',
    one: 'دقيقة واحدة للقراءة',
    two: 'دقيقتان للقراءة',
    few: '{n} دقائق للقراءة',
    many: '{n} دقيقة للقراءة',
    other: '{n} دقيقة للقراءة',
  },
  articleCount: {
    zero: 'لا مقالات',
    one: 'مقال واحد',
    two: 'مقالان',
    few: '{n} مقالات',
    many: '{n} مقالًا',
    other: '{n} مقال',
  },
  pageOf: 'الصفحة {n} من {count}',
  pages: 'الصفحات',
  newerArticles: 'مقالات أحدث',
  olderArticles: 'مقالات أقدم',
  topics: 'المواضيع',
  topicsTitle: 'المواضيع',
  topicsDescription: 'تصفّح المدونة حسب الموضوع.',
  topicTitle: 'مقالات عن {topic}',
  topicDescription: 'كل المقالات عن {topic}، الأحدث أولًا.',
  topicInOtherLanguage: 'هذا الموضوع بالعربية',
  allTopics: 'كل المواضيع',
  contents: 'المحتويات',
  newerArticle: 'المقال الأحدث',
  olderArticle: 'المقال الأقدم',
  relatedArticles: 'مقالات ذات صلة',
  moreArticles: 'مقالات أخرى',
  jsonFeed: 'موجز JSON',
  search: 'البحث',
  searchTitle: 'ابحث في المدونة',
  searchDescription: 'اعثر على المقالات العربية بكلمات من عناوينها أو نصوصها.',
  searchLabel: 'الكلمات المطلوبة',
  searchButton: 'ابحث',
  searchNoScript:
    'يعمل البحث في المتصفح بلغة JavaScript، وهي معطّلة هنا. تصفّح المقالات صفحةً صفحة أو حسب الموضوع بدلًا من ذلك.',
  searchNoResults: 'لا مقال يطابق «{q}».',
  searchResults: {
    zero: 'لا مقال يطابق «{q}».',
    one: 'مقال واحد يطابق «{q}».',
    two: 'مقالان يطابقان «{q}».',
    few: '{n} مقالات تطابق «{q}».',
    many: '{n} مقالًا يطابق «{q}».',
    other: '{n} مقال يطابق «{q}».',
  },
  searchUnavailable: 'تعذّر تحميل البحث. تصفّح المقالات صفحةً صفحة أو حسب الموضوع.',
  agentQueries: {
    mcp: ['ما الروابط التي تعرضها صفحة صانع المحتوى هذه', 'أعطني رقم الهاتف من بطاقة العمل الرقمية هذه'],
    'read-profiles-and-cards': ['افتح صفحة روابط صانع المحتوى', 'احفظ جهة الاتصال من بطاقة العمل هذه'],
    'read-the-blog': ['ابحث عن مقالات المدونة عن الخصوصية', 'هل أختار بطاقة عمل برمز QR أم NFC'],
    'use-the-mcp-server': ['اقرأ صفحة عامة عبر خادم MCP', 'ما أدوات MCP التي يقدّمها هذا الموقع'],
  },
};

const dictionaries: Record<Lang, Dictionary> = { en, ar };

export function t(lang: Lang): Dictionary {
  return dictionaries[lang];
}

/** A dictionary string with its `{name}` placeholders filled. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.hasOwn(values, name) ? String(values[name]) : whole,
  );
}

const PLURAL_RULES = new Map<Lang, Intl.PluralRules>();

/** The form of `forms` for the number `n` in `lang`, filled with `{n}` and `values`. */
export function plural(lang: Lang, forms: Plural, n: number, values: Record<string, string | number> = {}): string {
  let rules = PLURAL_RULES.get(lang);
  if (!rules) PLURAL_RULES.set(lang, (rules = new Intl.PluralRules(lang)));
  return fill(forms[rules.select(n)] ?? forms.other, { n, ...values });
}
