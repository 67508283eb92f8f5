import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ViewerTickets } from '../../application/ports/viewer-tickets.js';

/** What every ViewerTickets adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeViewerTicketsContract(name: string, make: () => Promise<ViewerTickets>) {
  describe(`adapter contract: ViewerTickets (${name})`, () => {
    let tickets: ViewerTickets;
    const now = new Date('2026-03-01T12:00:00Z');
    const later = (ms: number) => new Date(now.getTime() + ms);
    const userId = randomUUID();
    before(async () => {
      tickets = await make();
    });

    it('hands a ticket out once, only before it expires', async () => {
      const ticket = { userId, subdomain: 'ada', stateHash: 'ab'.repeat(32), expiresAt: later(60_000) };
      await tickets.saveTicket('h1', ticket);
      const taken = await Promise.all([tickets.takeTicket('h1', now), tickets.takeTicket('h1', now)]);
      expect(taken.filter((t) => t !== null)).to.have.length(1);
      expect(taken.find((t) => t !== null)).to.deep.equal(ticket);
      await tickets.saveTicket('h2', ticket);
      expect(await tickets.takeTicket('h2', later(60_000))).to.equal(null);
      expect(await tickets.takeTicket('h2', now)).to.equal(null);
    });

    it('finds sessions until they expire or are deleted, and purges expired ones', async () => {
      const session = { userId, subdomain: 'acme', expiresAt: later(1_000) };
      await tickets.saveSession('s1', session);
      await tickets.saveSession('s2', { ...session, expiresAt: later(10_000) });
      expect(await tickets.findSession('s1', now)).to.deep.equal(session);
      expect(await tickets.findSession('s1', later(1_000))).to.equal(null);
      expect(await tickets.findSession('nope', now)).to.equal(null);
      await tickets.purgeExpired(later(5_000));
      expect(await tickets.findSession('s1', now)).to.equal(null);
      expect(await tickets.findSession('s2', now)).to.not.equal(null);
      await tickets.deleteSession('s2');
      expect(await tickets.findSession('s2', now)).to.equal(null);
    });

    it("deletes every session of one user, on every subdomain, and no one else's", async () => {
      const other = randomUUID();
      await tickets.saveSession('u1', { userId, subdomain: 'ada', expiresAt: later(60_000) });
      await tickets.saveSession('u2', { userId, subdomain: 'acme', expiresAt: later(60_000) });
      await tickets.saveSession('u3', { userId: other, subdomain: 'acme', expiresAt: later(60_000) });
      await tickets.deleteSessionsOfUser(userId);
      expect(await tickets.findSession('u1', now)).to.equal(null);
      expect(await tickets.findSession('u2', now)).to.equal(null);
      expect(await tickets.findSession('u3', now)).to.not.equal(null);
    });
  });
}
