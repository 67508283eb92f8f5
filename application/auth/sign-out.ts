import { inject, injectable } from 'inversify';
import { ViewerAccess } from '../hosting/viewer-access.js';
import { WebSessionService } from './web-session-service.js';

/**
 * Signing out of the web app: the web session ends, and with it every viewer session of that user on every
 * dashboards host and every process (ViewerAccess.endAllFor), so no private dashboard stays open behind it.
 */
@injectable()
export class SignOut {
  constructor(
    @inject(WebSessionService) private readonly sessions: WebSessionService,
    @inject(ViewerAccess) private readonly viewers: ViewerAccess,
  ) {}

  async execute(sessionToken: string): Promise<void> {
    const userId = await this.sessions.end(sessionToken);
    if (userId !== null) await this.viewers.endAllFor(userId);
  }
}
