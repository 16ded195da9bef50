// A notice of a commit from the primary (issue 65) is read from its payload alone: anything else on the channel (any
// role that can connect may NOTIFY it) is not a notice, and is ignored, never chased.
import { describe, expect, it } from 'vitest';
import { parseNotice } from '../../sidecar/store/postgres/change-notices.ts';

describe("a change notice's payload", () => {
  it('is the change log sequence and the WAL position the trigger sends', () => {
    expect(parseNotice('1842 0/3000148')).toEqual({ seq: 1842, lsn: '0/3000148' });
    expect(parseNotice('7 1A/FF00AB12')).toEqual({ seq: 7, lsn: '1A/FF00AB12' });
  });

  it('is nothing else', () => {
    for (const payload of [
      undefined,
      '',
      'not a notice',
      '1842',
      '1842 0/3000148 extra',
      '-1 0/1',
      '1842 0/3000148\n',
      '99999999999999999999 0/0',
      '1842 0/123456789',
      '1842 g/1',
    ])
      expect(parseNotice(payload), JSON.stringify(payload)).toBeUndefined();
  });
});
