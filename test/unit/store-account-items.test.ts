import { describe, expect, it } from 'vitest';
import { userRecord } from '../../ops/user-records';
import { toUser, toUserItem } from '../../shared/store/auth/account-items';

/** A user's item in the auth table (docs/data-model.md): what is stored is what is read back, and no more. */
describe('a user’s account item', () => {
  it('marks a machine credential, and only a machine credential, as one, both ways', () => {
    const person = userRecord('alice', 'pa:ss', 'books');
    expect(toUserItem(person)).not.toHaveProperty('machine');
    expect(toUser(toUserItem(person))).not.toHaveProperty('machine');
    const robot = { ...userRecord('robot', 'secret', 'books'), machine: true };
    expect(toUserItem(robot)).toHaveProperty('machine', true);
    expect(toUser(toUserItem(robot))).toHaveProperty('machine', true);
  });

  it('carries a credential version both ways, and none for a user written before versions', () => {
    const legacy = userRecord('alice', 'pa:ss', 'books');
    expect(toUserItem(legacy)).not.toHaveProperty('credentialVersion');
    expect(toUser(toUserItem(legacy))).not.toHaveProperty('version');
    const versioned = { ...legacy, version: 'v1' };
    expect(toUserItem(versioned)).toHaveProperty('credentialVersion', 'v1');
    expect(toUser(toUserItem(versioned))).toHaveProperty('version', 'v1');
  });
});
