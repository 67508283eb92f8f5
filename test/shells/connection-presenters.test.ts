import { expect } from 'chai';
import type { ConnectionSummary } from '../../application/connections/manage-connections.js';
import { connectionJson } from '../../shells/presenters/connections/connection-presenters.js';

/** A connection's wire shape (list_connections, the CLI), made from the use cases' summary; never its URL. */
describe('connection presenters', () => {
  const created = new Date('2024-03-01T10:00:00.000Z');
  const tested = new Date('2024-03-02T11:30:00.500Z');
  const summary: ConnectionSummary = {
    id: 'c1',
    ownerUserId: 'u1',
    workspaceId: null,
    label: 'Sales DB',
    kind: 'postgres',
    status: 'failing',
    lastTestedAt: tested,
    lastError: 'could not connect',
    createdAt: created,
  };

  it('shows a personal connection with snake_case keys in wire order and ISO times', () => {
    const json = connectionJson(summary);
    expect(Object.keys(json)).to.deep.equal(['id', 'label', 'kind', 'status', 'scope', 'workspace_id', 'last_tested_at', 'last_error', 'created_at']);
    expect(json).to.deep.equal({
      id: 'c1',
      label: 'Sales DB',
      kind: 'postgres',
      status: 'failing',
      scope: 'personal',
      workspace_id: null,
      last_tested_at: '2024-03-02T11:30:00.500Z',
      last_error: 'could not connect',
      created_at: '2024-03-01T10:00:00.000Z',
    });
  });

  it('names a workspace connection\'s scope and keeps a never-tested one\'s time null', () => {
    const json = connectionJson({ ...summary, workspaceId: 'w1', status: 'pending', lastTestedAt: null, lastError: null });
    expect(json).to.deep.include({ scope: 'workspace', workspace_id: 'w1', last_tested_at: null, last_error: null });
  });

  it('never carries the owner or anything beyond the wire keys', () => {
    const withUrl = { ...summary, url: 'postgres://reader:secret@db/sales' } as ConnectionSummary;
    expect(JSON.stringify(connectionJson(withUrl))).to.not.contain('secret').and.not.contain('u1');
  });
});
