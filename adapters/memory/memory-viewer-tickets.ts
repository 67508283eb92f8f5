import { injectable } from 'inversify';
import type { ViewerSession, ViewerTicket, ViewerTickets } from '../../application/ports/viewer-tickets.js';

/** Viewer tickets and sessions in Maps keyed by token hash; one process only. */
@injectable()
export class MemoryViewerTickets implements ViewerTickets {
  private readonly tickets = new Map<string, ViewerTicket>();
  private readonly sessions = new Map<string, ViewerSession>();

  async saveTicket(tokenHash: string, ticket: ViewerTicket): Promise<void> {
    this.tickets.set(tokenHash, { ...ticket });
  }

  async takeTicket(tokenHash: string, now: Date): Promise<ViewerTicket | null> {
    const ticket = this.tickets.get(tokenHash);
    this.tickets.delete(tokenHash);
    return ticket && ticket.expiresAt > now ? ticket : null;
  }

  async saveSession(tokenHash: string, session: ViewerSession): Promise<void> {
    this.sessions.set(tokenHash, { ...session });
  }

  async findSession(tokenHash: string, now: Date): Promise<ViewerSession | null> {
    const session = this.sessions.get(tokenHash);
    return session && session.expiresAt > now ? { ...session } : null;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    this.sessions.delete(tokenHash);
  }

  async deleteSessionsOfUser(userId: string): Promise<void> {
    for (const [hash, s] of this.sessions) if (s.userId === userId) this.sessions.delete(hash);
  }

  async purgeExpired(now: Date): Promise<void> {
    for (const [hash, t] of this.tickets) if (t.expiresAt <= now) this.tickets.delete(hash);
    for (const [hash, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(hash);
  }
}
