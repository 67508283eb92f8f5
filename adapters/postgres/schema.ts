/**
 * Every TypeORM entity and migration of the service, in one list each.
 * Each capability adds its own entity files and its own migration class here (migrations in timestamp order).
 */
import type { MixedList, EntitySchema } from 'typeorm';
import { UserEntity } from './entities/account-user.js';
import { WorkspaceEntity } from './entities/account-workspace.js';
import { MembershipEntity } from './entities/account-membership.js';
import { DashboardEntity } from './entities/dashboard-record.js';
import { DashboardAliasEntity } from './entities/dashboard-alias.js';
import { DashboardVersionEntity } from './entities/dashboard-version.js';
import { FileEntity } from './entities/dashboard-file.js';
import { Foundation1700000000000 } from './migrations/1700000000000-foundation.js';
import {
  OAuthAccessTokenEntity,
  OAuthAuthorizationRequestEntity,
  OAuthClientEntity,
  OAuthCodeEntity,
  OAuthGrantEntity,
  OAuthRefreshTokenEntity,
  WebSessionEntity,
} from './entities/oauth-entities.js';
import { OAuth1700000001000 } from './migrations/1700000001000-oauth.js';
import { DashboardViewsDailyEntity } from './entities/hosting-views.js';
import { HostingViewerSessionEntity, HostingViewerTicketEntity } from './entities/hosting-viewers.js';
import { Hosting1700000002000 } from './migrations/1700000002000-hosting.js';
import { ConnectionEntity } from './entities/connection-entities.js';
import { DashboardLiveRenderEntity, RefreshRunEntity, RefreshScheduleEntity } from './entities/refresh-entities.js';
import { ConnectionsRefresh1700000003000 } from './migrations/1700000003000-connections-refresh.js';
import { AccountIdentityEntity } from './entities/account-identity.js';
import { AccountIdentities1700000006000 } from './migrations/1700000006000-account-identities.js';
import { FileSweep1700000005000 } from './migrations/1700000005000-file-sweep.js';
import { GrantInvalidation1700000010000 } from './migrations/1700000010000-grant-invalidation.js';
import { DashboardHotPaths1700000010200 } from './migrations/1700000010200-dashboard-hot-paths.js';
import { ClientMetadataDocuments1700000014000 } from './migrations/1700000014000-client-metadata-documents.js';
import { FileCompression1700000015000 } from './migrations/1700000015000-file-compression.js';
import { DashboardListingVersions1700000015100 } from './migrations/1700000015100-dashboard-listing-versions.js';
import { PublishWrites1700000015200 } from './migrations/1700000015200-publish-writes.js';
import { FilesSortedBeforeBytes1700000015300 } from './migrations/1700000015300-files-sorted-before-bytes.js';
import { TagsInsertedPerRow1700000015400 } from './migrations/1700000015400-tags-inserted-per-row.js';
import { PublishGenericPlans1700000015500 } from './migrations/1700000015500-publish-generic-plans.js';
import { PublishAnswersItsMiss1700000015600 } from './migrations/1700000015600-publish-answers-its-miss.js';
import { VersionRefreshable1700000015700 } from './migrations/1700000015700-version-refreshable.js';
import { ViewerSessionInvalidation1700000015800 } from './migrations/1700000015800-viewer-session-invalidation.js';
import { RefreshRetryWindow1700000015900 } from './migrations/1700000015900-refresh-retry-window.js';
import { ShareLinks1700000016000 } from './migrations/1700000016000-share-links.js';
import { Embeds1700000016100 } from './migrations/1700000016100-embeds.js';
import { DeliverySubscriptions1700000016600 } from './migrations/1700000016600-delivery-subscriptions.js';
import { AlertStates1700000017000 } from './migrations/1700000017000-alert-states.js';
import { ParamRenders1700000017200 } from './migrations/1700000017200-param-renders.js';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const ENTITIES: MixedList<Function | string | EntitySchema> = [
  UserEntity,
  WorkspaceEntity,
  MembershipEntity,
  DashboardEntity,
  DashboardAliasEntity,
  DashboardVersionEntity,
  FileEntity,
  OAuthClientEntity,
  OAuthAuthorizationRequestEntity,
  OAuthGrantEntity,
  OAuthCodeEntity,
  OAuthAccessTokenEntity,
  OAuthRefreshTokenEntity,
  WebSessionEntity,
  DashboardViewsDailyEntity,
  HostingViewerTicketEntity,
  HostingViewerSessionEntity,
  ConnectionEntity,
  RefreshScheduleEntity,
  RefreshRunEntity,
  DashboardLiveRenderEntity,
  AccountIdentityEntity,
];

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const MIGRATIONS: Function[] = [
  Foundation1700000000000,
  OAuth1700000001000,
  Hosting1700000002000,
  ConnectionsRefresh1700000003000,
  FileSweep1700000005000,
  AccountIdentities1700000006000,
  GrantInvalidation1700000010000,
  DashboardHotPaths1700000010200,
  ClientMetadataDocuments1700000014000,
  FileCompression1700000015000,
  DashboardListingVersions1700000015100,
  PublishWrites1700000015200,
  FilesSortedBeforeBytes1700000015300,
  TagsInsertedPerRow1700000015400,
  PublishGenericPlans1700000015500,
  PublishAnswersItsMiss1700000015600,
  VersionRefreshable1700000015700,
  ViewerSessionInvalidation1700000015800,
  RefreshRetryWindow1700000015900,
  ShareLinks1700000016000,
  Embeds1700000016100,
  DeliverySubscriptions1700000016600,
  AlertStates1700000017000,
  ParamRenders1700000017200,
];
