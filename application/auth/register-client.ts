import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { parseClientRegistration } from '../../domain/oauth-clients.js';
import { RATE_LIMITS, RATE_WINDOW_SECONDS } from '../../domain/rate-limits.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore } from '../ports/oauth-store.js';
import { RateLimiter } from '../ports/rate-limiter.js';

/** The registration response (RFC 7591 §3.2.1): the client's id and its metadata as accepted. */
export interface RegisteredClient {
  client_id: string;
  client_id_issued_at: number;
  client_name?: string;
  redirect_uris: string[];
  grant_types: string[];
  response_types: ['code'];
  token_endpoint_auth_method: 'none';
  scope?: string;
}

export const registrationRateLimited = () =>
  new DomainError('rate_limited', 'too many client registrations, please retry shortly');

/** `POST /register`: dynamic registration of a public client, 30 per minute per client address. */
@injectable()
export class RegisterClient {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(body: unknown, clientIp: string): Promise<RegisteredClient> {
    const { points } = RATE_LIMITS.register;
    // Limits fail open (as the tools' do): an unreachable Redis must not stop sign-ups.
    const allowed = await this.limiter.consume('register', clientIp, points, RATE_WINDOW_SECONDS).catch(() => true); // fail open; limiter adapters log their own failures
    if (!allowed) throw registrationRateLimited();
    const registration = parseClientRegistration(body);
    const createdAt = this.clock.now();
    const id = randomUUID();
    await this.store.insertClient({ id, ...registration, createdAt });
    return {
      client_id: id,
      client_id_issued_at: Math.floor(createdAt.getTime() / 1000),
      ...(registration.name !== null && { client_name: registration.name }),
      redirect_uris: registration.redirectUris,
      grant_types: registration.grantTypes,
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      ...(registration.scope !== null && { scope: registration.scope }),
    };
  }
}
