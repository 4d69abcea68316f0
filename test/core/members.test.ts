import { pageInput, registerInput, updateMemberInput } from '../../shared/schemas/members.js';
import { validate } from '../../main/core/errors.js';
import { describe, expect, it } from 'vitest';
import { argon2Hasher, type PasswordHasher } from '../../main/core/members/passwords.js';
import { testCore } from '../support/core.js';

/** The real argon2 hasher, counting how often each path pays for a verification. */
function countingHasher(): PasswordHasher & { verifications: number } {
  const real = argon2Hasher();
  const counted = {
    verifications: 0,
    hash: real.hash,
    verify: async (stored: string, pwd: string) => {
      counted.verifications++;
      return real.verify(stored, pwd);
    },
    burn: async (pwd: string) => {
      counted.verifications++;
      return real.burn(pwd);
    },
  };
  return counted;
}

const alice = { username: 'Alice01', pwd: 'secret1', email: 'Alice@Example.com' };

async function setup(passwords?: PasswordHasher) {
  const core = testCore(passwords ? { passwords } : {});
  const client = core.clients.create({ name: 'Demo' });
  return { core, client, clientId: client.client_id };
}

describe('members', () => {
  it('stores an argon2id hash, never the password', async () => {
    const { core, clientId } = await setup();
    await core.members.register(clientId, alice);
    const row = core.db.prepare('SELECT * FROM members').get() as Record<string, unknown>;
    expect(row.pwd_hash).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(JSON.stringify(row)).not.toContain(alice.pwd);
  });

  it('keeps usernames and e-mails unique per client, whatever their case', async () => {
    const { core, clientId } = await setup();
    await core.members.register(clientId, alice);
    await expect(core.members.register(clientId, { ...alice, email: 'other@example.com', username: 'ALICE01' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      parameter: 'username',
    });
    await expect(core.members.register(clientId, { ...alice, username: 'Bob0001', email: 'alice@EXAMPLE.com' })).rejects.toMatchObject({
      code: 'ALREADY_EXISTS',
      parameter: 'email',
    });
    const other = core.clients.create({ name: 'Other' });
    await expect(core.members.register(other.client_id, alice)).resolves.toMatchObject({ member: { username: 'Alice01' } });
  });

  it('registers two at once with the same name: one wins, the other gets ALREADY_EXISTS', async () => {
    const { core, clientId } = await setup();
    const results = await Promise.allSettled([
      core.members.register(clientId, alice),
      core.members.register(clientId, { ...alice, email: 'two@example.com' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    expect(results.find((r) => r.status === 'rejected')).toMatchObject({ reason: { code: 'ALREADY_EXISTS' } });
  });

  it('authenticates by username or e-mail, in any case', async () => {
    const { core, clientId } = await setup();
    const { member } = await core.members.register(clientId, alice);
    expect((await core.members.authenticate(clientId, 'alice01', 'secret1')).id).toBe(member.id);
    expect((await core.members.authenticate(clientId, 'ALICE@example.COM', 'secret1')).id).toBe(member.id);
  });

  it('gives a wrong password and an unknown member the same error at the same cost', async () => {
    const passwords = countingHasher();
    const { core, clientId } = await setup(passwords);
    await core.members.register(clientId, alice);
    passwords.verifications = 0;
    const wrong = await core.members.authenticate(clientId, 'alice01', 'wrong-pwd').catch((e: unknown) => e);
    expect(passwords.verifications).toBe(1);
    const unknown = await core.members.authenticate(clientId, 'nobody99', 'wrong-pwd').catch((e: unknown) => e);
    expect(passwords.verifications).toBe(2);
    expect(unknown).toMatchObject({ code: 'INVALID_CREDENTIALS', message: 'unknown member or wrong password' });
    expect(wrong).toMatchObject({ code: 'INVALID_CREDENTIALS', message: 'unknown member or wrong password' });
  });

  it('pages the member list in registration order', async () => {
    const { core, clientId } = await setup();
    for (let i = 0; i < 5; i++) {
      await core.members.register(clientId, { username: `member${i}`, pwd: 'secret1', email: `m${i}@example.com` });
      core.clock.advance(1000);
    }
    // The input as the transports check it (the API's and the console's schema).
    const page = (raw: object) => validate(pageInput, raw);
    expect(core.members.list(clientId, page({ count: 2, page: 1 })).map((m) => m.username)).toEqual(['member2', 'member3']);
    expect(core.members.list(clientId, page({})).length).toBe(5);
    expect(() => page({ count: 0 })).toThrow(/count must be at least 1/);
    expect(() => page({ count: 1001 })).toThrow(/count must be at most 1000/);
    expect(() => page({ page: -1 })).toThrow(/page must be 0 or more/);
  });

  it('changes the password only with the old one, and logs out every other token', async () => {
    const { core, clientId } = await setup();
    const first = await core.members.register(clientId, alice);
    const second = await core.members.startSession(first.member, undefined);
    expect(() => validate(updateMemberInput, { pwd: 'newpass1' })).toThrow(expect.objectContaining({ code: 'MISSING_PARAMETER', parameter: 'oldpwd' }));
    await expect(core.members.update(clientId, first.member.id, { pwd: 'newpass1', oldpwd: 'nope' })).rejects.toMatchObject({
      code: 'INVALID_CREDENTIALS',
    });
    const keep = core.tokens.resolve(second.token);
    await core.members.update(clientId, first.member.id, { pwd: 'newpass1', oldpwd: 'secret1' }, { ...core.tokens.author(keep), tokenHash: keep.tokenHash });
    expect(() => core.tokens.resolve(first.token)).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    expect(core.tokens.resolve(second.token).memberId).toBe(first.member.id);
    await expect(core.members.authenticate(clientId, 'alice01', 'newpass1')).resolves.toBeTruthy();
  });

  it('updates gender and birthday, and clears them with null', async () => {
    const { core, clientId } = await setup();
    const { member } = await core.members.register(clientId, validate(registerInput, { ...alice, gender: 'female', birthday: '1990-05-06T07:08:09.100+0200' }));
    expect(member).toMatchObject({ gender: 'FEMALE', birthday: '1990-05-06T07:08:09.100+02:00' });
    const changed = await core.members.update(clientId, member.id, validate(updateMemberInput, { gender: 'MaLe' }));
    expect(changed).toMatchObject({ gender: 'MALE', birthday: '1990-05-06T07:08:09.100+02:00' });
    const cleared = await core.members.update(clientId, member.id, { gender: null, birthday: null });
    expect(cleared).toMatchObject({ gender: 'UNDEFINED', birthday: null });
    expect(core.members.require(clientId, member.id)).toMatchObject({ gender: 'UNDEFINED', birthday: null });
  });

  it('deleting a member deletes its tokens with it', async () => {
    const { core, clientId } = await setup();
    const { member, token } = await core.members.register(clientId, alice);
    core.members.remove(clientId, member.id);
    expect(() => core.tokens.resolve(token)).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    expect(core.db.prepare('SELECT count(*) FROM tokens WHERE member_id IS NOT NULL').pluck().get()).toBe(0);
    expect(() => core.members.remove(clientId, member.id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
  });

  it('never shows one client the members of another', async () => {
    const { core, clientId } = await setup();
    const { member } = await core.members.register(clientId, alice);
    const other = core.clients.create({ name: 'Other' });
    expect(core.members.find(other.client_id, member.id)).toBeUndefined();
    expect(() => core.members.remove(other.client_id, member.id)).toThrow(expect.objectContaining({ code: 'NOT_FOUND' }));
    expect(core.members.find(clientId, member.id)).toBeDefined();
  });
});
