// A card's phones as the owner says them (issue 62): "0114567890", a landline, was labelled Mobile and CELL because
// a number alone was taken for a mobile; a local mobile number silently got no WhatsApp.
import { describe, expect, it } from 'vitest';
import { validateImport } from '../../sidecar/store/import-format.ts';

const withPhones = (phones: unknown[]) =>
  validateImport({ cards: [{ cardId: 'card1', mode: 'page', lang: 'en', name: 'Dana', phones }] }, () => false);

describe("a card's phones", () => {
  it('keeps the kind the owner said, mobile as cell, and gives a number alone no kind', () => {
    const validated = withPhones([
      { number: '+966 50 111 2222', type: 'mobile' },
      { number: '011 456 7890', type: 'landline' },
      { number: '+966 11 456 7890', type: 'work' },
      '0114567890',
    ]);
    expect(validated.ok && validated.data.cards[0]).toMatchObject({
      phones: [
        { number: '+966 50 111 2222', type: 'cell' },
        { number: '011 456 7890', type: 'landline' },
        { number: '+966 11 456 7890', type: 'work' },
        { number: '0114567890', type: 'phone' },
      ],
    });
  });

  it('refuses a mobile number without its country code, with the way to write it', () => {
    const validated = withPhones([{ number: '050 111 2222', type: 'mobile' }]);
    expect(validated.ok ? [] : validated.errors).toEqual([
      'cards[0] (cardId "card1").phones[0].number "050 111 2222": a mobile number needs its country code, written ' +
        'with + (e.g. "+966 50 111 2222" for "050 111 2222"): WhatsApp and callers abroad dial it',
    ]);
  });
});
