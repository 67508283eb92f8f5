import { expect } from 'chai';
import { defaultVisibility, requestedScope, notAMember, workspaceNotFound, triggerRefreshWorkspaceRefusal, type GrantLock } from '../../domain/scope.js';
import { refusal } from '../support/refusal.js';


describe('domain: grant-lock resolution', () => {
  const personal: GrantLock = { kind: 'personal' };
  const locked: GrantLock = { kind: 'workspace', workspaceId: 'w1', workspaceSlug: 'acme' };
  const legacy: GrantLock = { kind: 'legacy' };

  it('personal-locked: uses the personal account and refuses any non-empty workspace', () => {
    expect(requestedScope(personal, undefined)).to.deep.equal({ kind: 'personal' });
    expect(requestedScope(personal, '')).to.deep.equal({ kind: 'personal' });
    const err = refusal(() => requestedScope(personal, 'acme'));
    expect(err.code).to.equal('scope_refused');
    expect(err.message.startsWith('This connection is authorized for your personal account only and cannot act on a workspace.')).to.equal(true);
    expect(err.message).to.match(/re-authorize/i);
  });

  it('workspace-locked: uses the locked workspace; a different argument is refused', () => {
    expect(requestedScope(locked, undefined)).to.deep.equal({ kind: 'locked-workspace', workspace: { id: 'w1', slug: 'acme' } });
    expect(requestedScope(locked, 'acme')).to.deep.equal({ kind: 'locked-workspace', workspace: { id: 'w1', slug: 'acme' } });
    const err = refusal(() => requestedScope(locked, 'other'));
    expect(err.message.startsWith('This connection is authorized for the "acme" workspace and cannot act on "other".')).to.equal(true);
    expect(err.message).to.match(/re-authorize/i);
  });

  it('legacy: honours a workspace argument and defaults to personal', () => {
    expect(requestedScope(legacy, undefined)).to.deep.equal({ kind: 'personal' });
    expect(requestedScope(legacy, 'acme')).to.deep.equal({ kind: 'lookup', slug: 'acme' });
  });

  it('legacy: a workspace that is not a non-empty string is refused', () => {
    expect(refusal(() => requestedScope(legacy, '')).message).to.equal('workspace must be a non-empty slug string');
    expect(refusal(() => requestedScope(legacy, 42)).message).to.equal('workspace must be a non-empty slug string');
    expect(refusal(() => requestedScope(legacy, '  ')).message).to.equal('workspace must be a non-empty slug string');
  });

  it('legacy: unknown workspace and non-member texts', () => {
    expect(workspaceNotFound('nope').message).to.equal('workspace "nope" not found');
    expect(notAMember('acme').message).to.equal('not a member of workspace "acme"');
  });

  it('trigger_refresh refuses workspace targets with the spec text', () => {
    expect(triggerRefreshWorkspaceRefusal().message).to.equal(
      "Triggering a refresh on demand isn't available for workspace dashboards yet - it works on personal dashboards only.",
    );
  });

  it('defaults visibility: personal public, workspace private', () => {
    expect(defaultVisibility({ kind: 'personal', userId: 'u', handle: 'ada' })).to.equal('public');
    expect(defaultVisibility({ kind: 'workspace', workspaceId: 'w', slug: 'acme' })).to.equal('private');
  });
});
