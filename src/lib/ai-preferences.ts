// The one declared preference for how AI may use this site's content: to search it and to answer with it (AI input),
// yes; to train models on it, no (profiles and cards are their owners' words). Written in robots.txt in both forms
// readers look for, Cloudflare's Content-Signal (contentsignals.org) and the IETF AIPREF Content-Usage rule
// (draft-ietf-aipref-vocab: train-ai, search; draft-ietf-aipref-attach: the robots.txt rule and the HTTP header), and
// sent as a Content-Usage header on every HTML and Markdown answer. Change it here: every form follows.

export const AI_USE = { search: true, aiInput: true, aiTrain: false } as const;

const yesNo = (allowed: boolean) => (allowed ? 'yes' : 'no');
const yN = (allowed: boolean) => (allowed ? 'y' : 'n');

/** Content-Signal (robots.txt): search, ai-input and ai-train, each yes or no. */
export const CONTENT_SIGNAL = `search=${yesNo(AI_USE.search)}, ai-input=${yesNo(AI_USE.aiInput)}, ai-train=${yesNo(AI_USE.aiTrain)}`;

/**
 * Content-Usage (robots.txt rule and HTTP header, an RFC 9651 dictionary): AIPREF's categories, train-ai and search,
 * each y or n. AIPREF has no category for AI input; saying nothing of it leaves it to the default (allowed here too).
 */
export const CONTENT_USAGE = `train-ai=${yN(AI_USE.aiTrain)}, search=${yN(AI_USE.search)}`;
