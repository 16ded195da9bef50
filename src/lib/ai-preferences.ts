// The one declared preference for how AI may use this site's content: to search it and to answer with it (AI input),
// yes; to train models on it, no (profiles and cards are their owners' words). Written in robots.txt in both forms
// readers look for, Cloudflare's Content-Signal (contentsignals.org) and the IETF AIPREF Content-Usage rule
// (draft-ietf-aipref-vocab: train-ai, search; draft-ietf-aipref-attach: the robots.txt rule and the HTTP header), and
// sent as a Content-Usage header on every HTML and Markdown answer. Change it here: every form follows.
// An owner may say otherwise for their own profile or card (issue 63: `aiUse`, one of AIPREF's two labels or both):
// every representation of that owner's page then carries the owner's choice, the site's for what the owner left out.

export const AI_USE = { search: true, aiInput: true, aiTrain: false } as const;

const yesNo = (allowed: boolean) => (allowed ? 'yes' : 'no');
const yN = (allowed: boolean) => (allowed ? 'y' : 'n');

/** Content-Signal (robots.txt): search, ai-input and ai-train, each yes or no. */
export const CONTENT_SIGNAL = `search=${yesNo(AI_USE.search)}, ai-input=${yesNo(AI_USE.aiInput)}, ai-train=${yesNo(AI_USE.aiTrain)}`;

/** AIPREF's two labels (draft-ietf-aipref-vocab): training AI models, and search (finding and linking to it). */
export const AI_USE_LABELS = ['train-ai', 'search'] as const;
export type AiUseLabel = (typeof AI_USE_LABELS)[number];

/** An owner's choice for their page: each label allowed (true) or not; a label left out is the site's. */
export type AiUse = Partial<Record<AiUseLabel, boolean>>;

/** The site's own choice, label by label (AI_USE). */
const SITE_AI_USE: Readonly<Record<AiUseLabel, boolean>> = { 'train-ai': AI_USE.aiTrain, search: AI_USE.search };

/** What holds for a page whose owner chose `own` (nothing: the site's choice). */
export const aiUseOf = (own: AiUse | null | undefined): Record<AiUseLabel, boolean> => ({ ...SITE_AI_USE, ...own });

/**
 * Content-Usage (robots.txt rule and HTTP header, an RFC 9651 dictionary): AIPREF's categories, train-ai and search,
 * each y or n, for a page whose owner chose `own`. AIPREF has no category for AI input; saying nothing of it leaves
 * it to the default (allowed here too).
 */
const usageText = (use: Record<AiUseLabel, boolean>): string =>
  AI_USE_LABELS.map((label) => `${label}=${yN(use[label])}`).join(', ');

/** The site's Content-Usage: every page but an owner's who chose otherwise. */
export const CONTENT_USAGE = usageText(SITE_AI_USE);

/** The Content-Usage of a page whose owner chose `own`: made only for an owner who chose (every page answer asks). */
export const contentUsageOf = (own?: AiUse | null): string => (own ? usageText(aiUseOf(own)) : CONTENT_USAGE);
