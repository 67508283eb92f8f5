import type { Command } from 'commander';
import { ManageSubscriptions, type NewSubscriptionRequest } from '../../application/delivery/manage-subscriptions.js';
import type { SharingActor } from '../../application/sharing/sharing-targets.js';
import { invalid } from '../../domain/errors.js';
import { outcomeJson, subscriptionJson } from '../presenters/delivery/subscription-presenters.js';
import { shareTokenOf } from '../presenters/delivery/delivery-addresses.js';
import { action } from './context.js';
import { print, table } from './output.js';

/** The CLI acts as the operator, who may manage every subscription; subscriptions are named by id. */
const OPERATOR: SharingActor = { kind: 'operator' };

const selectorOf = (options: Record<string, unknown>) => ({
  owner: options.owner as string | undefined,
  workspace: options.workspace as string | undefined,
});

/** Exactly one of --email, --slack-webhook, --webhook. */
function channelOf(options: Record<string, unknown>): Pick<NewSubscriptionRequest, 'channel' | 'target'> {
  const given = [
    ['email', options.email],
    ['slack', options.slackWebhook],
    ['webhook', options.webhook],
  ].filter(([, value]) => value !== undefined) as Array<[NewSubscriptionRequest['channel'], string]>;
  if (given.length !== 1) throw invalid('give exactly one of --email ADDRESS, --slack-webhook URL or --webhook URL');
  return { channel: given[0]![0], target: String(given[0]![1]) };
}

/** `subscription add/list/remove/test`: the operator's way to manage deliveries (people use the Deliver section). */
export function registerSubscriptionCommands(program: Command): void {
  const subscription = program.command('subscription').description('deliver a dashboard by email, Slack or webhook, after each scheduled refresh or on a cron of its own');
  registerAdd(subscription);
  subscription
    .command('list')
    .description('list the subscriptions of an owner or workspace, or of one dashboard')
    .option('--owner <handle>', 'subscriptions to this user\'s personal dashboards')
    .option('--workspace <slug>', 'subscriptions to this workspace\'s dashboards')
    .option('--slug <slug>', 'only this dashboard\'s subscriptions')
    .action(
      action(async (app, options) => {
        const listed = await app.container.get(ManageSubscriptions).list(OPERATOR, selectorOf(options), options.slug as string | undefined);
        const rows = listed.map(subscriptionJson);
        print(options, rows, () => table(rows, ['id', 'slug', 'channel', 'target', 'when', 'status', 'consecutive_failures', 'last_error']));
      }, 'read'),
    );
  subscription
    .command('remove <id>')
    .description('delete a subscription: nothing more is sent to it')
    .action(
      action(async (app, options, id: string) => {
        const removed = await app.container.get(ManageSubscriptions).remove(OPERATOR, id);
        const json = { ...subscriptionJson(removed), status: 'removed' };
        print(options, json, () => [`subscription ${json.id} to ${removed.subdomain}/${json.slug} (${json.channel} ${json.target}): removed`]);
      }),
    );
  subscription
    .command('test <id>')
    .description('send one delivery now and print how it went (a failure counts like any other)')
    .action(
      action(async (app, options, id: string) => {
        const tested = await app.container.get(ManageSubscriptions).test(OPERATOR, id);
        const json = { ...subscriptionJson(tested), outcome: outcomeJson(tested.outcome) };
        const said = tested.outcome.status === 'failed' ? `failed: ${tested.outcome.error}${tested.outcome.paused ? ' (the subscription is now paused)' : ''}` : tested.outcome.status;
        print(options, json, () => [`subscription ${json.id} (${json.channel} ${json.target}): ${said}`]);
        if (tested.outcome.status === 'failed') options.io.exitCode = 1;
      }),
    );
}

function registerAdd(subscription: Command): void {
  subscription
    .command('add')
    .description('add a subscription; a generic webhook\'s signing secret is printed only this once')
    .option('--owner <handle>', 'the dashboard is a personal one of this user')
    .option('--workspace <slug>', 'the dashboard is one of this workspace')
    .requiredOption('--slug <slug>', 'the dashboard')
    .option('--email <address>', 'send an email to this address')
    .option('--slack-webhook <url>', 'post to this Slack incoming webhook')
    .option('--webhook <url>', 'post signed JSON to this URL')
    .option('--cron <expression>', 'send on this 5-field cron instead of after each scheduled refresh')
    .option('--timezone <zone>', 'the IANA time zone the cron is read in (default UTC)')
    .option('--share-link <url>', 'send this share link of the dashboard (as `share create` printed it) instead of its canonical URL')
    .action(
      action(async (app, options) => {
        const shareLinkToken = options.shareLink === undefined ? null : shareTokenOf(String(options.shareLink));
        const request: NewSubscriptionRequest = { ...channelOf(options), cron: options.cron as string | undefined, timezone: options.timezone as string | undefined, shareLinkToken };
        const created = await app.container.get(ManageSubscriptions).add(OPERATOR, selectorOf(options), String(options.slug), request);
        const json = { ...subscriptionJson(created), secret: created.secret };
        print(options, json, () => [
          `added subscription ${json.id} to ${created.subdomain}/${json.slug}: ${json.channel} ${json.target}, ${json.when}`,
          ...(created.secret
            ? [`signing secret: ${created.secret}`, 'This secret is not shown again: the receiver checks X-Dashpub-Signature with it (README, "Webhooks").']
            : []),
        ]);
      }),
    );
}
