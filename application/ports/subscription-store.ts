import type { OwnerRef } from '../../domain/scope.js';
import type { Subscription } from '../../domain/subscriptions.js';

/** A new subscription with its sealed parts: the webhook URL and the signing secret (SecretBox), null for email. */
export interface NewSubscription extends Subscription {
  owner: OwnerRef;
  sealedUrl: string | null;
  sealedSecret: string | null;
  /** The share link's token, sealed, when `viaShareLink`. */
  sealedShareToken: string | null;
}

/** A stored subscription with its owner and sealed parts, for the sender. */
export type StoredSubscription = NewSubscription;

export const SubscriptionStore = Symbol.for('SubscriptionStore');
/** Delivery subscriptions; they go with their dashboard. */
export interface SubscriptionStore {
  insert(subscription: NewSubscription): Promise<void>;
  countForDashboard(dashboardId: string): Promise<number>;
  /** The owner's subscriptions, or one dashboard's; oldest first. */
  list(owner: OwnerRef, dashboardId?: string): Promise<Subscription[]>;
  findById(id: string): Promise<StoredSubscription | null>;
  delete(id: string): Promise<boolean>;
  /** Unpaused subscriptions of a dashboard that send after each scheduled refresh (no cron of their own). */
  afterRefresh(dashboardId: string): Promise<Subscription[]>;
  /** Unpaused subscriptions whose own cron is due. */
  dueSchedules(now: Date, limit: number): Promise<Subscription[]>;
  /** Compare-and-set of the next run time: true for the one caller that moved it from `expected`. */
  claimSchedule(id: string, expected: Date, next: Date | null): Promise<boolean>;
  /** A delivery went out: the failure count restarts and a paused subscription resumes. */
  recordSuccess(id: string, at: Date): Promise<void>;
  /** Counts a failed delivery; pauses the subscription once `pauseAfter` are in a row. Returns the row as it is now. */
  recordFailure(id: string, error: string, at: Date, pauseAfter: number): Promise<Subscription | null>;
  /** Keeps the last error of an attempt that will be retried, without counting it. */
  recordAttemptError(id: string, error: string, at: Date): Promise<void>;
}
