import type { Settings } from '../../../application/ports/settings.js';

type InstructionSettings = Pick<Settings, 'serviceName' | 'dashboardScheme' | 'dashboardDomain'>;

/**
 * The `instructions` string of initialize: standing guidance a client keeps in context for the whole
 * session. Lines about tools this server does not list (yet) are left out so the guidance never
 * points at something tools/list lacks.
 */
export function serverInstructions(settings: InstructionSettings, toolNames: readonly string[]): string {
  const has = (name: string) => toolNames.includes(name);
  const domain = settings.dashboardDomain;
  const scheme = settings.dashboardScheme;
  const name = settings.serviceName;
  const lines: Array<string | false> = [
    `This server (${name}) publishes dashboards, web pages, for the signed-in user and keeps them versioned${has('trigger_refresh') ? ' and refreshed' : ''}.`,
    '',
    'Paths and slugs',
    '- A dashboard is addressed by its slug: 1 to 64 characters of [a-z0-9-], unique in the account or workspace (slugs left behind by renames count). A few slugs are reserved and refused by name.',
    '- publish_dashboard takes a path: "<slug>" (meaning <slug>/index.html) or "<slug>/<filename>" with a filename of [a-z0-9._-]. Never put the handle or workspace in a path; the service adds it from the authorization.',
    '',
    'URLs',
    `- Dashboards live at ${scheme}://<handle>.${domain}/<slug> (personal) or ${scheme}://<workspace-slug>.${domain}/<slug> (workspace). Every success message carries the canonical URL: give it to the user exactly as returned, never build one yourself.`,
    '- After rename_dashboard the old slug stays an alias that redirects (301) to the new URL.',
    '',
    'Static and refreshable',
    '- Static: send `body` (a self-contained HTML page or other file, utf8 or base64, at most 5242880 bytes), or a `spec` with inline `data` only. Pages must not load external scripts, fonts or images.',
    '- Refreshable: send a `spec` whose `queries` hold SQL that runs on a `connection`: "self" (the default; built-in metrics about your own dashboards, no personal data) or a warehouse connection id. Warehouse connections are created in the web app only, never through this server, and need a paid plan.',
    '- To change a spec dashboard, above all a large one, read get_dashboard with `summary: true` (panel and query ids, no data rows) and send publish_dashboard a `patch` (operations by id) instead of the whole spec again.',
    has('list_connections') && '- list_connections lists usable connection ids; introspect_schema shows tables and columns; validate_cube_sql checks one read-only SELECT or WITH before you publish it.',
    '- Parameters: a spec\'s `params` (types date, date_range, number, text, select, multi_select; with label, default, required) are written in its SQL as :id (:id.from and :id.to for a date_range) and bound as values, never spliced in; viewers pick values in a form on the page, and refreshes use the defaults. Every placeholder needs a parameter and every parameter a placeholder.',
    has('set_refresh_schedule') && '- set_refresh_schedule sets a 5-field cron; trigger_refresh runs one refresh now (personal dashboards only); get_refresh_status reports the last run. A workspace dashboard bound to a personal connection can never refresh.',
    '- Metadata (name, tags, chart, visibility, connection): omitting a field or passing null keeps its current value; tags [] clears tags. New dashboards are public in a personal account and private (members only) in a workspace unless visibility says otherwise. Use dry_run to check a publish without writing.',
    '',
    'Versions',
    '- Each publish or restore creates a new current version (its id is in the result); the state it replaces becomes a snapshot. The 20 newest unnamed snapshots are kept; naming a version with update_dashboard_version protects it (at most 30 named).',
    '- list_dashboard_versions shows up to 50, newest first; get_dashboard_version previews one; restore_dashboard_version makes it current again. Metadata-only updates create no version.',
    '',
    'Workspaces and authorization',
    '- When the user authorized this client they chose a target: their personal account, or one workspace. Calls act on that target by default; whoami and list_workspaces show it.',
    '- With a workspace-locked authorization, a different `workspace` argument is refused; with a personal one, any `workspace` argument is refused. Do not retry with other values: ask the user to re-authorize this connection and choose the target on the consent screen. Older authorizations without a lock accept a `workspace` slug the user is a member of.',
    '',
    'Results and errors',
    '- Results are text. Most carry a machine-readable copy between a line BEGIN_JSON and a line END_JSON; some also return structuredContent. The block is absent when there is nothing to list, so tolerate its absence.',
    '- A refusal is a result with isError true whose text says what is wrong: fix the named argument and retry, or relay the text to the user when they must act. Do not guess around a refusal.',
    `- Rate limits per user: publish_dashboard 60${has('validate_cube_sql') ? ', validate_cube_sql 120' : ''}${has('trigger_refresh') ? ', trigger_refresh 20' : ''} per 60 seconds. When limited, wait about 60 seconds before retrying.`,
    '- If calls fail with an authorization error, the client must sign in again in the browser. For "Internal error: ..." answers, tell the user the tool name, what you sent (without secrets) and the exact error text so they can report it to the operator.',
    '',
    `Resources: every dashboard is also readable as ${name}://{handle}/{slug} (resources/list, resources/read). Prompts: publish_static_dashboard, refreshable_dashboard, audit_my_dashboards.`,
  ];
  return lines.filter((line): line is string => line !== false).join('\n');
}
