// What an edit touches, written once. A row of the change log names one entity (a profile, a card, an alias: the
// triggers already write a profile's change for its cards and aliases too, since they show it). Every live answer is
// built from one entity and carries its tag: the sidecar's live cache evicts by it, the answer names it to edges in a
// header (xkey, Surrogate-Key, Cache-Tag), and the purger purges it at every edge when the log names it.
import { CARD_ID_PATTERN, SLUG_PATTERN } from '../../src/lib/surface.ts';
import type { Change } from '../store/store.ts';

/** Every live answer carries this tag too: purging it forgets every live page (a reset: another database, a gap). */
export const ALL_LIVE = 'live';

/** The tag of the entity a change names, or a live answer is built from. */
export function entityTag({ kind, key }: Change): string {
  return `${kind}:${key}`;
}

/**
 * The tags an edge must purge for these changes. A key no page can have (another writer's row that breaks the
 * identifier patterns) names nothing cached, and never reaches a header.
 */
export function purgeTags(changes: Change[]): string[] {
  const valid = changes.filter(({ kind, key }) => (kind === 'card' ? CARD_ID_PATTERN : SLUG_PATTERN).test(key));
  return [...new Set(valid.map(entityTag))];
}
