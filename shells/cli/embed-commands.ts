import type { Command } from 'commander';
import { ManageEmbeds, type EmbedState } from '../../application/sharing/manage-embeds.js';
import type { SharingActor } from '../../application/sharing/sharing-targets.js';
import { Settings } from '../../application/ports/settings.js';
import { DURATION_HINT, parseDuration } from '../../domain/durations.js';
import type { EmbedParam } from '../../domain/embeds.js';
import { invalid } from '../../domain/errors.js';
import { embedStateJson, signedEmbedJson } from '../presenters/sharing/embed-presenters.js';
import type { AppContainer } from '../container.js';
import { action } from './context.js';
import { print, type GlobalOptions } from './output.js';

const OPERATOR: SharingActor = { kind: 'operator' };
type Options = GlobalOptions & Record<string, unknown>;

const ownerOf = (options: Options) => ({ owner: options.owner as string | undefined, workspace: options.workspace as string | undefined });

/** `--owner` / `--workspace` and `--slug` on a subcommand. */
function forDashboard(command: Command): Command {
  return command
    .option('--owner <handle>', "a user's personal dashboard")
    .option('--workspace <slug>', "a workspace's dashboard")
    .requiredOption('--slug <slug>', 'the dashboard');
}

function stateLines(state: EmbedState): string[] {
  return [
    `embedding of ${state.subdomain}/${state.slug}: ${state.enabled ? 'on' : 'off'}`,
    `allowed origins: ${state.origins.length ? state.origins.join(' ') : '(none: no site can frame it)'}`,
    `embed secret: ${state.secretCreatedAt ? `made ${state.secretCreatedAt.toISOString()}` : 'none yet (made when embedding is first turned on)'}`,
  ];
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** `--param region=South`: the name before the first `=`, the value after it (which may hold `=`). */
function paramPair(text: string): EmbedParam {
  const eq = text.indexOf('=');
  if (eq <= 0) throw invalid(`--param must be name=value (got ${JSON.stringify(text.slice(0, 100))})`);
  return [text.slice(0, eq), text.slice(eq + 1)];
}

/** The secret, shown this once: to stdout only, never to a log. */
const secretLines = (secret: string | null) => (secret ? [`embed secret (shown once; keep it on your server): ${secret}`] : []);

/**
 * `embed show|on|off|allow|url|secret`: signed embeds from the operator's side (the web app's embed
 * settings, for any owner); docs/decisions/0173-embed-cli.md says why on, off, show and secret exist.
 */
export function registerEmbedCommands(program: Command): void {
  const embed = program.command('embed').description('let other sites frame a dashboard through signed URLs');
  const manage = (app: AppContainer) => app.container.get(ManageEmbeds);

  forDashboard(embed.command('show').description("show a dashboard's embedding: on or off, allowed origins, when the secret was made")).action(
    action(async (app, options) => {
      const state = await manage(app).status(OPERATOR, ownerOf(options), options.slug as string);
      print(options, embedStateJson(state), () => stateLines(state));
    }, 'read'),
  );

  for (const [name, enabled] of [['on', true], ['off', false]] as const) {
    forDashboard(embed.command(name).description(enabled ? 'turn embedding on (makes the owner\'s secret and prints it once if there is none)' : 'turn embedding off: every embed URL of the dashboard stops working')).action(
      action(async (app, options) => {
        const changed = await manage(app).configure(OPERATOR, ownerOf(options), options.slug as string, { enabled });
        print(options, { ...embedStateJson(changed), secret: changed.secret }, () => [...stateLines(changed), ...secretLines(changed.secret)]);
      }),
    );
  }

  forDashboard(embed.command('allow').description('add an origin allowed to frame the dashboard (or take one away with --remove)'))
    .requiredOption('--origin <origin>', 'a scheme and host, like https://intranet.example.com')
    .option('--remove', 'take the origin away instead')
    .action(
      action(async (app, options) => {
        const origin = options.origin as string;
        const edit = options.remove ? { remove: origin } : { add: origin };
        const changed = await manage(app).configure(OPERATOR, ownerOf(options), options.slug as string, { origins: edit });
        print(options, embedStateJson(changed), () => stateLines(changed));
      }),
    );

  registerEmbedUrl(embed);

  embed
    .command('secret')
    .description("rotate an owner's embed secret: every embed URL signed with the old one stops working")
    .option('--owner <handle>', "a user's secret")
    .option('--workspace <slug>', "a workspace's secret")
    .requiredOption('--rotate', 'make a new secret (required: the current one is never shown again)')
    .action(
      action(async (app, options) => {
        const made = await manage(app).rotateSecret(OPERATOR, ownerOf(options));
        print(options, { owner: made.subdomain, secret: made.secret, created_at: made.createdAt.toISOString() }, () => [
          `rotated the embed secret of ${made.subdomain}; earlier embed URLs no longer work`,
          ...secretLines(made.secret),
        ]);
      }),
    );
}

/** `embed url`: a signed URL for testing, parameters locked with `--param name=value`. */
function registerEmbedUrl(embed: Command): void {
  forDashboard(embed.command('url').description('print a signed embed URL, for testing'))
    .requiredOption('--expires-in <duration>', 'how long it works, at most 30 days: 30m, 12h, 7d or 2w')
    .option('--param <name=value>', 'lock a parameter to a value (repeat it; a multi_select repeats its name)', collect, [])
    .action(
      action(async (app, options) => {
        const lifetime = parseDuration(options.expiresIn as string);
        if (lifetime === null) throw invalid(`--expires-in must be ${DURATION_HINT}`);
        const params = (options.param as string[]).map(paramPair);
        const signed = await app.container.get(ManageEmbeds).signedUrl(OPERATOR, ownerOf(options), options.slug as string, lifetime, params);
        const json = signedEmbedJson(app.container.get<Settings>(Settings), signed);
        print(options, json, () => [json.url, `expires ${json.expires_at}`]);
      }, 'read'),
    );
}
