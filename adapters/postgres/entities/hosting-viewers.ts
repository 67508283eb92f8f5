import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** One-time tickets from the web app to a dashboards subdomain, by SHA-256 of the ticket. */
@Entity({ name: 'hosting_viewer_tickets' })
export class HostingViewerTicketEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'user_id', type: 'text' })
  userId!: string;

  @Column({ name: 'subdomain', type: 'text' })
  subdomain!: string;

  @Column({ name: 'state_hash', type: 'text' })
  stateHash!: string;

  @Index('hosting_viewer_tickets_expires_at_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}

/** Viewer sessions (the dashboards host's own cookie), by SHA-256 of the cookie value. */
@Entity({ name: 'hosting_viewer_sessions' })
export class HostingViewerSessionEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'user_id', type: 'text' })
  userId!: string;

  @Column({ name: 'subdomain', type: 'text' })
  subdomain!: string;

  @Index('hosting_viewer_sessions_expires_at_idx')
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'created_at', type: 'timestamptz', default: () => 'now()' })
  createdAt!: Date;
}
