import { expect } from 'chai';
import { MemoryViewerTickets } from '../../adapters/memory/memory-viewer-tickets.js';
import { SignOut } from '../../application/auth/sign-out.js';
import { WebSessionService } from '../../application/auth/web-session-service.js';
import { DEFAULT_HOSTING_OPTIONS } from '../../application/hosting/hosting-options.js';
import { ViewerAccess } from '../../application/hosting/viewer-access.js';
import type { TokenInvalidationListener, TokenInvalidations } from '../../application/ports/token-invalidations.js';
import { buildContainer, systemClock } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';

describe('application: viewer sessions and signing out', () => {
  function counted() {
    const tickets = new MemoryViewerTickets();
    let lookups = 0;
    const findSession = tickets.findSession.bind(tickets);
    tickets.findSession = (hash, now) => {
      lookups++;
      return findSession(hash, now);
    };
    return { tickets, lookups: () => lookups };
  }

  async function sessionOn(viewers: ViewerAccess, userId: string, subdomain: string): Promise<string> {
    const state = viewers.newState();
    return (await viewers.exchange(subdomain, await viewers.issueTicket(userId, subdomain, state), state))!.token;
  }

  it('remembers a lookup only while the invalidation channel is live, and forgets it when the user is announced', async () => {
    let listener: TokenInvalidationListener | undefined;
    const channel = { live: true, subscribe: (l: TokenInvalidationListener) => (listener = l) } as TokenInvalidations & { live: boolean };
    const { tickets, lookups } = counted();
    const viewers = new ViewerAccess(tickets, systemClock, { ...DEFAULT_HOSTING_OPTIONS, metadataTtlMs: 600_000 }, channel);
    const token = await sessionOn(viewers, 'u1', 'acme');
    await viewers.viewer('acme', token);
    await viewers.viewer('acme', token);
    expect(lookups()).to.equal(1);
    listener!.invalidated({ kind: 'grant', id: 'g' });
    await viewers.viewer('acme', token);
    expect(lookups()).to.equal(1);
    listener!.invalidated({ kind: 'user', id: 'u1' });
    await viewers.viewer('acme', token);
    expect(lookups()).to.equal(2);
    channel.live = false;
    await viewers.viewer('acme', token);
    await viewers.viewer('acme', token);
    expect(lookups()).to.equal(4);
  });

  it("signing out of the web app ends the user's viewer sessions on every subdomain, and no one else's", async () => {
    const app = await buildContainer(testSettings(), { storage: 'memory' });
    try {
      const viewers = app.container.get(ViewerAccess);
      const web = app.container.get(WebSessionService);
      const { token: signedIn } = await web.start('u1');
      const mine = [await sessionOn(viewers, 'u1', 'u1handle'), await sessionOn(viewers, 'u1', 'acme')];
      const theirs = await sessionOn(viewers, 'u2', 'acme');
      expect(await viewers.viewer('acme', mine[1]!)).to.equal('u1');
      await app.container.get(SignOut).execute(signedIn);
      expect(await web.resolve(signedIn)).to.equal(null);
      expect(await viewers.viewer('u1handle', mine[0]!)).to.equal(null);
      expect(await viewers.viewer('acme', mine[1]!)).to.equal(null);
      expect(await viewers.viewer('acme', theirs)).to.equal('u2');
    } finally {
      await app.close();
    }
  });
});
