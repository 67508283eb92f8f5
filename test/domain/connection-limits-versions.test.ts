import { expect } from 'chai';
import { parseConnectionRef, connectionNotFound, connectionNotActive, connectionUnverifiable } from '../../domain/connection-ref.js';
import { checkSpecSize, checkUploadSize } from '../../domain/limits.js';
import { validateVersionId } from '../../domain/ids.js';
import { checkNamedVersionRoom, snapshotsToPrune, type VersionSummary } from '../../domain/versions.js';
import { toolRateLimited, refreshBudgetExhausted } from '../../domain/rate-limits.js';

const message = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('expected a refusal');
};

describe('domain: connection reference shape', () => {
  it('defaults to self and accepts self or a UUID', () => {
    expect(parseConnectionRef(undefined)).to.equal('self');
    expect(parseConnectionRef(null)).to.equal('self');
    expect(parseConnectionRef('self')).to.equal('self');
    expect(parseConnectionRef('6F9619FF-8B86-D011-B42D-00C04FC964FF')).to.deep.equal({ id: '6f9619ff-8b86-d011-b42d-00c04fc964ff' });
  });

  it('refuses a non-string', () => {
    expect(message(() => parseConnectionRef(5))).to.equal('connection must be a string');
  });

  it('refuses anything else with guidance', () => {
    const text = message(() => parseConnectionRef('warehouse'));
    expect(text.startsWith('connection "warehouse" is not a valid connection; pass "self"')).to.equal(true);
    expect(text).to.contain('web app');
    expect(text).to.contain('list_connections');
    expect(text).to.contain('own');
  });

  it('gives usability texts', () => {
    const id = '6f9619ff-8b86-d011-b42d-00c04fc964ff';
    expect(connectionNotFound(id).message.startsWith(`Connection "${id}" was not found among your connections.`)).to.equal(true);
    expect(connectionNotFound(id).message).to.contain('"self"');
    expect(connectionNotActive('Sales DB', 'failing').message.startsWith('Connection "Sales DB" is not active (status: failing).')).to.equal(true);
    expect(connectionUnverifiable('timeout').message).to.equal('Could not verify the connection: timeout');
  });
});

describe('domain: caps, ids and rate-limit texts', () => {
  it('allows exactly 5242880 bytes and refuses one more', () => {
    expect(() => checkUploadSize(5_242_880)).not.to.throw();
    expect(message(() => checkUploadSize(5_242_881)).startsWith('413 payload too large: ')).to.equal(true);
    expect(() => checkSpecSize(5_242_880)).not.to.throw();
    expect(message(() => checkSpecSize(6_000_000)).startsWith('spec is 6000000 bytes, over the 5242880-byte limit')).to.equal(true);
  });

  it('checks version ids are UUIDs', () => {
    expect(message(() => validateVersionId('v1'))).to.equal('version_id must be a valid uuid');
    expect(validateVersionId('6F9619FF-8B86-D011-B42D-00C04FC964FF')).to.equal('6f9619ff-8b86-d011-b42d-00c04fc964ff');
  });

  it('words the throttles as the spec does', () => {
    expect(toolRateLimited('publish_dashboard').message).to.equal(
      'Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.',
    );
    expect(refreshBudgetExhausted().message).to.equal('Too many refresh triggers right now. Wait about a minute and try again.');
  });
});

describe('domain: version retention', () => {
  const versions = (n: number, named: number[] = []): VersionSummary[] =>
    Array.from({ length: n }, (_, i) => ({ id: `v${i + 1}`, seq: i + 1, name: named.includes(i + 1) ? `n${i + 1}` : null }));

  it('keeps the 20 newest unnamed snapshots', () => {
    expect(snapshotsToPrune(versions(20))).to.deep.equal([]);
    expect(snapshotsToPrune(versions(23))).to.deep.equal(['v3', 'v2', 'v1']);
  });

  it('never prunes named snapshots', () => {
    expect(snapshotsToPrune(versions(23, [1, 2]))).to.deep.equal(['v3']);
  });

  it('refuses a 31st named version', () => {
    expect(() => checkNamedVersionRoom(29)).not.to.throw();
    expect(message(() => checkNamedVersionRoom(30))).to.contain('already has 30 named versions');
  });
});
