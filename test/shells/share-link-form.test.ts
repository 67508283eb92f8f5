import { expect } from 'chai';
import { isDomainError } from '../../domain/errors.js';
import { newLinkRequest } from '../../shells/koa/app/share-links-routes.js';

const refusal = (fields: Record<string, string>): string => {
  try {
    newLinkRequest(fields);
  } catch (error) {
    if (isDomainError(error)) return error.message;
    throw error;
  }
  throw new Error('not refused');
};

/** The Share section's create form as ManageShareLinks takes it. */
describe('shells: the share link form', () => {
  it('reads a choice of duration, with "never" (and nothing) meaning no expiry', () => {
    expect(newLinkRequest({ expires: '7d' })).to.include({ expiresInMs: 7 * 86_400_000 });
    expect(newLinkRequest({ expires: '1d', label: ' Board ', password: 'pw', pin: '' })).to.deep.equal({ label: ' Board ', password: 'pw', pinnedVersionId: null, expiresInMs: 86_400_000 });
    expect(newLinkRequest({ expires: 'never' }).expiresInMs).to.equal(null);
    expect(newLinkRequest({}).expiresInMs).to.equal(null);
  });

  it('a typed date wins over the choice and lasts to the end of that day in UTC', () => {
    const request = newLinkRequest({ expires: '1d', expires_on: '2027-02-28' });
    expect(request.expiresAt?.toISOString()).to.equal('2027-02-28T23:59:59.999Z');
    expect(request).to.not.have.property('expiresInMs');
  });

  it('refuses a date that is not one and a choice the form does not offer', () => {
    for (const on of ['2027-02-30', '2027-2-3', 'tomorrow', '2027-13-01']) expect(refusal({ expires_on: on }), on).to.equal('expiry date must be a date such as 2027-01-31');
    for (const choice of ['-1d', '3650d', '1y']) expect(refusal({ expires: choice }), choice).to.equal('expiry must be one of the listed choices');
  });
});
