import type { Command } from 'commander';
import { Settings } from '../../application/ports/settings.js';
import { ManageShareLinks, type ListedShareLink, type NewLinkRequest } from '../../application/sharing/manage-share-links.js';
import type { SharingActor } from '../../application/sharing/sharing-targets.js';
import { DURATION_HINT, parseDuration } from '../../domain/durations.js';
import { invalid } from '../../domain/errors.js';
import { shareLinkJson, shareLinkUrl } from '../presenters/sharing/share-link-presenters.js';
import { action } from './context.js';
import type { CliIo } from './io.js';
import { print, readStdin, table, type GlobalOptions } from './output.js';

/** The CLI acts as the operator, who may manage every link; links are named by id, whoever owns them. */
const OPERATOR: SharingActor = { kind: 'operator' };

const selectorOf = (options: Record<string, unknown>) => ({
  owner: options.owner as string | undefined,
  workspace: options.workspace as string | undefined,
});

/** An ISO 8601 date (midnight UTC) or date-time with a zone, so no one's local time is guessed. */
const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:?\d{2}))?$/i;

function parseExpiry(options: Record<string, unknown>): Pick<NewLinkRequest, 'expiresInMs' | 'expiresAt'> {
  if (options.expiresIn !== undefined && options.expiresAt !== undefined) throw invalid('give at most one of --expires-in or --expires-at');
  if (options.expiresIn !== undefined) {
    const ms = parseDuration(String(options.expiresIn));
    if (ms === null) throw invalid(`--expires-in must be ${DURATION_HINT} (got "${String(options.expiresIn)}")`);
    return { expiresInMs: ms };
  }
  if (options.expiresAt !== undefined) {
    const text = String(options.expiresAt);
    const at = ISO_DATE_TIME.test(text) ? new Date(text) : null;
    if (!at || Number.isNaN(at.getTime())) throw invalid(`--expires-at must be an ISO 8601 date-time with a zone, such as 2026-12-31T18:00:00Z (got "${text}")`);
    return { expiresAt: at };
  }
  return {};
}

/** The password from a pipe or a file: never from argv, and never from a terminal, where it would show as typed. */
async function readPassword(io: CliIo): Promise<string> {
  if (io.stdin.isTTY) throw invalid('--password-stdin reads the password from a pipe or a file, not from a terminal, where it would show as you type');
  const password = await readStdin(io);
  if (password === '') throw invalid('--password-stdin read an empty password; pipe the password in, or leave the option out for a link without one');
  return password;
}

/** One row of `share list`, as the table shows it. */
function row(listed: ListedShareLink): Record<string, unknown> {
  const json = shareLinkJson(listed);
  return {
    id: json.id,
    slug: json.slug,
    label: json.label,
    status: json.status,
    password: json.password ? 'yes' : 'no',
    expires: json.expires_at,
    pinned: json.pinned_version_id,
    views: json.views,
    last_used: json.last_used_at,
  };
}

/** `share create/list/pause/resume/revoke`: the operator's way to manage share links (people use the web app). */
export function registerShareCommands(program: Command): void {
  const share = program.command('share').description('manage share links: view-only URLs to one dashboard for people without an account');
  registerCreate(share);
  registerList(share);
  registerChanges(share);
}

function registerCreate(share: Command): void {
  share
    .command('create')
    .description('make a share link and print its URL (shown only this once)')
    .option('--owner <handle>', 'the dashboard is a personal one of this user')
    .option('--workspace <slug>', 'the dashboard is one of this workspace')
    .requiredOption('--slug <slug>', 'the dashboard')
    .option('--label <label>', 'a name for the link, shown in lists (who it is for)')
    .option('--password-stdin', 'ask viewers for a password, read from standard input (a pipe or a file)')
    .option('--expires-in <duration>', `stop working after ${DURATION_HINT}`)
    .option('--expires-at <date-time>', 'stop working at this ISO 8601 date-time, such as 2026-12-31T18:00:00Z')
    .option('--pin <version-id>', 'always show this version, even after later publishes')
    .action(
      action(async (app, options) => {
        const expiry = parseExpiry(options);
        const password = options.passwordStdin ? await readPassword(options.io) : null;
        const request: NewLinkRequest = { label: options.label as string | undefined, password, pinnedVersionId: options.pin as string | undefined, ...expiry };
        const created = await app.container.get(ManageShareLinks).create(OPERATOR, selectorOf(options), String(options.slug), request);
        const url = shareLinkUrl(app.container.get<Settings>(Settings), created.subdomain, created.token);
        const json = { ...shareLinkJson(created), url };
        print(options, json, () => [
          `created share link ${json.id} to ${created.subdomain}/${json.slug}` + (json.label ? ` ("${json.label}")` : ''),
          url,
          'This URL is not shown again: copy it now. Anyone holding it can view the dashboard.',
        ]);
      }),
    );
}

function registerList(share: Command): void {
  share
    .command('list')
    .description('list the share links of an owner or workspace, or of one dashboard (never their URLs)')
    .option('--owner <handle>', 'links to this user\'s personal dashboards')
    .option('--workspace <slug>', 'links to this workspace\'s dashboards')
    .option('--slug <slug>', 'only the links to this dashboard')
    .action(
      action(async (app, options) => {
        const listed = await app.container.get(ManageShareLinks).list(OPERATOR, selectorOf(options), options.slug as string | undefined);
        print(options, listed.map(shareLinkJson), () =>
          table(listed.map(row), ['id', 'slug', 'label', 'status', 'password', 'expires', 'pinned', 'views', 'last_used']),
        );
      }, 'read'),
    );
}

/** `share pause/resume/revoke ID`: by id, as `share list` shows it, whoever owns the dashboard. */
function registerChanges(share: Command): void {
  const said = (options: GlobalOptions, listed: ListedShareLink, status: string, note: string) => {
    const json = { ...shareLinkJson(listed), status };
    print(options, json, () => [`share link ${json.id} to ${listed.subdomain}/${json.slug}: ${status}${note}`]);
  };
  const changes = [
    ['pause', 'stop a link working until it is resumed (browsers that opened it lose access too)', ''],
    ['resume', 'make a paused link work again (an expired one stays expired)', ''],
    ['revoke', 'delete a link for good: its URL and every browser that opened it lose access at once', ' (its URL no longer opens the dashboard)'],
  ] as const;
  for (const [verb, description, note] of changes) {
    share
      .command(`${verb} <id>`)
      .description(description)
      .action(
        action(async (app, options, id: string) => {
          const changed = await app.container.get(ManageShareLinks)[verb](OPERATOR, id);
          said(options, changed, verb === 'revoke' ? 'revoked' : changed.status, note);
        }),
      );
  }
}
