import { describe, expect, it } from 'vitest';
import { hashToken } from '../../main/core/tokens/tokens.js';
import { testCore } from '../support/core.js';

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('client applications', () => {
  it('creates a client with a GUID api_key, Implicit Flow off, and a working admin token', () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Demo' });
    expect(c.client_id).toMatch(GUID);
    expect(c.implicit_flow).toBe(false);
    expect(c.admin_token).toMatch(GUID);
    const principal = core.tokens.resolve(c.admin_token);
    expect(principal).toMatchObject({ clientId: c.client_id, role: 'admin', memberId: null, expiresAt: null });
  });

  it('lists clients without any secret', () => {
    const core = testCore();
    const a = core.clients.create({ name: 'A', implicitFlow: true });
    core.clients.create({ name: 'B' });
    const list = core.clients.list();
    expect(list.map((c) => [c.name, c.implicit_flow])).toEqual([
      ['A', true],
      ['B', false],
    ]);
    expect(JSON.stringify(list)).not.toContain(a.admin_token);
    expect(Object.keys(list[0]!).sort()).toEqual(['client_id', 'created', 'implicit_flow', 'name']);
  });

  it('refuses an empty or over-long name', () => {
    const core = testCore();
    expect(() => core.clients.create({ name: '   ' })).toThrow(/must not be empty/);
    expect(() => core.clients.create({ name: 'x'.repeat(101) })).toThrow(/at most 100/);
    expect(core.clients.create({ name: 'x'.repeat(100) }).name).toHaveLength(100);
  });

  it('rotating the admin token revokes the old one at once', () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Demo' });
    const next = core.clients.rotateAdminToken(c.client_id);
    expect(next).not.toBe(c.admin_token);
    expect(() => core.tokens.resolve(c.admin_token)).toThrow(expect.objectContaining({ code: 'INVALID_TOKEN' }));
    expect(core.tokens.resolve(next).role).toBe('admin');
  });

  it('switches Implicit Flow on and off, and finds api_keys in any case', () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Demo' });
    expect(core.clients.setImplicitFlow(c.client_id.toUpperCase(), true).implicit_flow).toBe(true);
    expect(core.clients.find(c.client_id)?.implicit_flow).toBe(1);
    expect(core.clients.setImplicitFlow(c.client_id, false).implicit_flow).toBe(false);
    expect(() => core.clients.setImplicitFlow('00000000-0000-4000-8000-000000000000', true)).toThrow(/no such client/);
  });
});

describe('tokens', () => {
  it('stores only a SHA-256 of each token, never the token', () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Demo' });
    const stored = core.db.prepare('SELECT hash FROM tokens').pluck().all() as Buffer[];
    expect(stored).toEqual([hashToken(c.admin_token)]);
    const dump = core.db.prepare('SELECT * FROM tokens').all();
    expect(JSON.stringify(dump)).not.toContain(c.admin_token);
  });

  it('refuses absent, malformed, unknown and revoked tokens with distinct codes', () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Demo' });
    const codeOf = (t: string | undefined): string => {
      try {
        core.tokens.resolve(t);
        return 'accepted';
      } catch (e) {
        return (e as { code: string }).code;
      }
    };
    expect(codeOf(undefined)).toBe('TOKEN_REQUIRED');
    expect(codeOf('')).toBe('TOKEN_REQUIRED');
    expect(codeOf('not-a-token')).toBe('INVALID_TOKEN');
    expect(codeOf('00000000-0000-4000-8000-000000000000')).toBe('INVALID_TOKEN');
    expect(codeOf(c.admin_token.toUpperCase())).toBe('accepted');
    core.tokens.revoke(hashToken(c.admin_token), { kind: 'console' });
    expect(codeOf(c.admin_token)).toBe('INVALID_TOKEN');
  });

  it('expires a token exactly when its expiration time arrives', () => {
    const core = testCore();
    const c = core.clients.create({ name: 'Demo' });
    const t = core.tokens.issue(c.client_id, 'admin', null, core.clock.now() + 1000);
    core.clock.advance(999);
    expect(core.tokens.resolve(t).role).toBe('admin');
    core.clock.advance(1);
    expect(() => core.tokens.resolve(t)).toThrow(expect.objectContaining({ code: 'TOKEN_EXPIRED' }));
  });
});
