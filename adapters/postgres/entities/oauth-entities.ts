import { Column, Entity, PrimaryColumn } from 'typeorm';

/** Rows of the 1700000001000-oauth migration; every `…_hash` is a SHA-256 (hex), never the secret. */

@Entity({ name: 'oauth_clients' })
export class OAuthClientEntity {
  /** A UUID, or a client ID metadata document's URL. */
  @PrimaryColumn({ type: 'text' })
  id!: string;

  @Column({ type: 'text', nullable: true })
  name!: string | null;

  @Column({ name: 'redirect_uris', type: 'text', array: true })
  redirectUris!: string[];

  @Column({ name: 'grant_types', type: 'text', array: true })
  grantTypes!: string[];

  @Column({ type: 'text', nullable: true })
  scope!: string | null;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'metadata_expires_at', type: 'timestamptz', nullable: true })
  metadataExpiresAt!: Date | null;
}

@Entity({ name: 'oauth_authorization_requests' })
export class OAuthAuthorizationRequestEntity {
  @PrimaryColumn({ name: 'handle_hash', type: 'text' })
  handleHash!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column({ name: 'redirect_uri', type: 'text' })
  redirectUri!: string;

  @Column({ type: 'text', nullable: true })
  state!: string | null;

  @Column({ name: 'code_challenge', type: 'text' })
  codeChallenge!: string;

  @Column({ name: 'requested_scope', type: 'text', nullable: true })
  requestedScope!: string | null;

  @Column({ type: 'text' })
  scope!: string;

  @Column({ type: 'text' })
  resource!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}

@Entity({ name: 'oauth_grants' })
export class OAuthGrantEntity {
  @PrimaryColumn({ type: 'uuid' })
  id!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column({ name: 'lock_kind', type: 'text' })
  lockKind!: 'personal' | 'workspace' | 'legacy';

  @Column({ name: 'lock_workspace_id', type: 'uuid', nullable: true })
  lockWorkspaceId!: string | null;

  @Column({ name: 'lock_workspace_slug', type: 'text', nullable: true })
  lockWorkspaceSlug!: string | null;

  @Column({ type: 'text' })
  scope!: string;

  @Column({ type: 'text' })
  resource!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'session_expires_at', type: 'timestamptz' })
  sessionExpiresAt!: Date;

  @Column({ name: 'revoked_at', type: 'timestamptz', nullable: true })
  revokedAt!: Date | null;

  @Column({ name: 'revoked_reason', type: 'text', nullable: true })
  revokedReason!: string | null;

  @Column({ name: 'refresh_current_hash', type: 'text', nullable: true })
  refreshCurrentHash!: string | null;

  @Column({ name: 'refresh_previous_hash', type: 'text', nullable: true })
  refreshPreviousHash!: string | null;

  @Column({ name: 'refresh_previous_retry_left', type: 'boolean' })
  refreshPreviousRetryLeft!: boolean;

  @Column({ name: 'refresh_rotated_at', type: 'timestamptz', nullable: true })
  refreshRotatedAt!: Date | null;

  @Column({ name: 'refresh_rotation_request', type: 'text', nullable: true })
  refreshRotationRequest!: string | null;
}

@Entity({ name: 'oauth_codes' })
export class OAuthCodeEntity {
  @PrimaryColumn({ name: 'code_hash', type: 'text' })
  codeHash!: string;

  @Column({ name: 'grant_id', type: 'uuid' })
  grantId!: string;

  @Column({ name: 'client_id', type: 'text' })
  clientId!: string;

  @Column({ name: 'redirect_uri', type: 'text' })
  redirectUri!: string;

  @Column({ name: 'code_challenge', type: 'text' })
  codeChallenge!: string;

  @Column({ type: 'text' })
  resource!: string;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt!: Date | null;
}

@Entity({ name: 'oauth_access_tokens' })
export class OAuthAccessTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'grant_id', type: 'uuid' })
  grantId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}

@Entity({ name: 'oauth_refresh_tokens' })
export class OAuthRefreshTokenEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'grant_id', type: 'uuid' })
  grantId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}

@Entity({ name: 'web_sessions' })
export class WebSessionEntity {
  @PrimaryColumn({ name: 'token_hash', type: 'text' })
  tokenHash!: string;

  @Column({ name: 'user_id', type: 'uuid' })
  userId!: string;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;
}
