import { isDomainError } from '../../../domain/errors.js';
import { validateSlug } from '../../../domain/names.js';
import { parseConnectionRef } from '../../../domain/connection-ref.js';
import type { Settings } from '../../../application/ports/settings.js';
import { invalidParams } from './jsonrpc.js';

export interface PromptArgument {
  name: string;
  description: string;
  required: boolean;
}

export interface PromptDefinition {
  name: string;
  title: string;
  description: string;
  arguments: PromptArgument[];
  /** Checks argument values beyond presence; throws DomainError with the text the client sees. */
  validate?(args: Record<string, string>): void;
  render(args: Record<string, string>): string;
}

export interface PromptMessage {
  role: 'user';
  content: { type: 'text'; text: string };
}

export const GRAINS = ['hour', 'day', 'week', 'month', 'quarter', 'year'] as const;

const CRON_FOR_GRAIN: Record<string, string> = {
  hour: '5 * * * *',
  day: '0 6 * * *',
  week: '0 6 * * 1',
  month: '0 6 1 * *',
  quarter: '0 6 1 1,4,7,10 *',
  year: '0 6 1 1 *',
};

type PromptSettings = Pick<Settings, 'serviceName' | 'dashboardScheme' | 'dashboardDomain'>;

/** The spec's three prompt templates, filled in with standing guidance for the model. */
export function defaultPrompts(settings: PromptSettings): PromptDefinition[] {
  return [staticDashboardPrompt(settings), refreshableDashboardPrompt(settings), auditPrompt()];
}

function staticDashboardPrompt(settings: PromptSettings): PromptDefinition {
  const url = `${settings.dashboardScheme}://<handle>.${settings.dashboardDomain}/<slug>`;
  return {
    name: 'publish_static_dashboard',
    title: 'Publish a static dashboard',
    description: 'Build a self-contained dashboard page about a topic and publish it, returning its URL.',
    arguments: [
      { name: 'topic', description: 'What the dashboard is about.', required: true },
      { name: 'slug', description: 'Slug to publish at ([a-z0-9-], up to 64 characters). Derived from the topic when omitted.', required: false },
    ],
    validate: (args) => {
      if (args.topic.trim() === '') throw invalidParams('Invalid params: topic must be a non-empty string');
      if (args.slug !== undefined) validateSlug(args.slug);
    },
    render: (args) =>
      [
        `Build a static dashboard about: ${args.topic}`,
        '',
        'Steps:',
        args.slug
          ? `1. Publish at the slug "${args.slug}".`
          : '1. Pick a short slug from the topic: lowercase letters, digits and hyphens only, at most 64 characters.',
        `2. Check the slug is free: call list_dashboards with {"slug": "<slug>"}. Publishing to an existing slug replaces that dashboard's content with a new version (the old one stays restorable), so ask before overwriting something unrelated.`,
        '3. Gather the figures the user gave you or that you can state with confidence. Never invent numbers; label estimates as estimates.',
        '4. Write ONE self-contained HTML page: inline CSS, charts as inline SVG or HTML tables, no external scripts, fonts, images or network requests (the page is served exactly as you send it, with no Content-Security-Policy added, so anything external would be fetched by every reader and break when it moves). Put a clear title, the date the data is from, and the source of each figure on the page. Keep it well under 5242880 bytes.',
        '   Alternatively send a dashboard spec instead of a body: {"title", "panels": [...], "data": {"<id>": [rows]}} with inline data only; the service renders it.',
        '   To change a published spec later, call get_dashboard with "summary": true and send publish_dashboard a "patch" (operations by panel id) rather than the whole spec again.',
        '5. First call publish_dashboard with {"path": "<slug>", "body": <the HTML>, "name": <a human title>, "tags": [...], "dry_run": true} to check everything; then call it again without dry_run. Never put the handle or workspace in the path: the service adds it from the authorization.',
        '6. Visibility: leave it out to use the default (public in a personal account, private in a workspace) unless the user asked otherwise. Say which one applied.',
        `7. Give the user the URL from the result exactly as returned (it has the form ${url}) and mention that later publishes to the same slug keep the earlier versions restorable.`,
        'If a call is refused, read the refusal text: fix the argument it names and retry, or relay it to the user when it asks them to act (for example to re-authorize for a workspace).',
      ].join('\n'),
  };
}

function refreshableDashboardPrompt(settings: PromptSettings): PromptDefinition {
  return {
    name: 'refreshable_dashboard',
    title: 'Build a refreshable dashboard',
    description: 'Design SQL-backed panels on a connection, publish them as a spec, and schedule refreshes.',
    arguments: [
      { name: 'connection', description: '"self" (the built-in metrics view, the default) or the id of a warehouse connection.', required: false },
      { name: 'grain', description: `Time grain of the charts and of the refresh schedule: ${GRAINS.join(', ')}.`, required: false },
    ],
    validate: (args) => {
      if (args.connection !== undefined) parseConnectionRef(args.connection);
      if (args.grain !== undefined && !(GRAINS as readonly string[]).includes(args.grain)) {
        throw invalidParams(`Invalid params: grain must be one of ${GRAINS.join(', ')}`);
      }
    },
    render: (args) => {
      const connection = args.connection ?? 'self';
      const grain = args.grain ?? 'day';
      const onSelf = connection === 'self';
      return [
        `Build a refreshable dashboard on the connection "${connection}", charted by ${grain}.`,
        '',
        'Steps:',
        onSelf
          ? '1. The "self" connection is the service\'s own metrics about the user\'s dashboards (dashboards, daily views, publishes, refresh runs); it needs no connection id and is always available. Call introspect_schema with {"connection": "self"} to see its tables and columns.'
          : `1. Call list_connections and check that "${connection}" is listed and active (warehouse connections are added and tested in the web app, never through this tool server). Then call introspect_schema with {"connection": "${connection}"} to see tables, columns and types.`,
        `2. Write one query per panel: a single read-only SELECT or WITH statement, aggregated by ${grain} (for example date_trunc('${grain}', <timestamp column>) AS period), ordered by period, returning only the columns the panel needs. Call validate_cube_sql with {"sql", "connection": "${connection}"} for each and fix what it reports.`,
        '3. Compose a spec: {"title", "description", "queries": {"<query id>": {"sql": "..."}}, "panels": [{"id", "type": line|bar|area|pie|scatter|table|stat|text, "title", "query": "<query id>", "x": "<column>", "y": "<column or list>", "width": 1-12, "format": number|percent|bytes|duration|compact or {"type": "currency", "currency": "EUR", "decimals": 0, "prefix", "suffix"}}]}. A stat panel takes "value" (read from the first row, so order the latest first), and optionally "compare": "<column of the previous value>" (or {"column", "good": "down"} when lower is better) and "sparkline": "<column drawn as a trend>"; a table panel takes "columns": [{"id", "label", "format"}]. Give every panel a stable id; later updates address panels by it. If the user wants to be told when a number crosses a line, add "alerts": [{"id", "query": "<query id>", "column": "<column>", "row": first|last|any, "when": {">": 100} (or <, >=, <=, =, !=) or "changes", "message"}]; they are checked after each refresh and notify the dashboard\'s subscribers when one fires and when it clears.',
        `4. Call publish_dashboard with {"path": "<slug>", "spec": <spec>, "connection": "${connection}", "name", "tags", "dry_run": true}: it checks the spec and prepares each query on the connection (a missing table or column is reported; no rows are fetched, nothing is written). Fix what it reports, then publish without dry_run.`,
        `5. Call set_refresh_schedule with a 5-field cron that suits the grain (for example "${CRON_FOR_GRAIN[grain]}") and the user's timezone. trigger_refresh runs it once now, for personal dashboards only. get_refresh_status shows the last run and its outcome.`,
        '6. A workspace dashboard bound to a personal connection publishes but can never refresh: in a workspace, use "self" or a connection created for that workspace, and pass on any warning the publish result carries.',
        `7. Give the user the URL from the result exactly as returned (form ${settings.dashboardScheme}://<handle or workspace>.${settings.dashboardDomain}/<slug>) and the schedule you set.`,
        '8. To change the dashboard later, above all a large one, do not resend the spec: call get_dashboard with {"slug", "summary": true} for its panel and query ids (no data rows), then publish_dashboard with {"path": "<slug>", "patch": [operations by id], "dry_run": true}, and again without dry_run.',
        'Refusal texts say what to fix; follow them rather than guessing, and never ask the user for database credentials.',
      ].join('\n');
    },
  };
}

function auditPrompt(): PromptDefinition {
  return {
    name: 'audit_my_dashboards',
    title: 'Audit my dashboards',
    description: 'Review every dashboard of the current authorization and propose tidy-ups, changing nothing without consent.',
    arguments: [],
    render: () =>
      [
        'Audit the dashboards this connection can see, without changing anything until I agree.',
        '',
        'Steps:',
        '1. Call list_dashboards and follow next_cursor until it is null, so no dashboard is missed. whoami tells you whether this is a personal account or a workspace.',
        '2. For each dashboard note slug, name, URL, visibility, tags and last update. Call list_dashboard_versions where history matters (a dashboard with no snapshots answers with text only) and get_refresh_status for refreshable ones.',
        '3. Flag: public dashboards whose names or tags suggest internal or personal data; missing or vague names and tags; near-duplicates; dashboards not updated for a long time; refreshable dashboards whose last run failed or that have no schedule; workspace dashboards bound to a personal connection (they cannot refresh); important versions that are unnamed (naming protects them from the automatic prune of the oldest of 20 snapshots).',
        '4. Answer with one table (slug, URL, visibility, last update, findings, suggested action), then a short list of proposed changes: update_dashboard for metadata and visibility, update_dashboard_version to name a version, rename_dashboard (the old slug keeps redirecting), delete_dashboard (irreversible: removes every version).',
        '5. Ask which changes to make, and make only those.',
      ].join('\n'),
  };
}

/** prompts/list and prompts/get, with the arguments checked before a template is filled. */
export class PromptCatalog {
  private readonly byName: Map<string, PromptDefinition>;

  constructor(prompts: PromptDefinition[]) {
    this.byName = new Map(prompts.map((p) => [p.name, p]));
  }

  list() {
    return [...this.byName.values()].map(({ name, title, description, arguments: args }) => ({ name, title, description, arguments: args }));
  }

  get(name: unknown, rawArgs: unknown): { description: string; messages: PromptMessage[] } {
    if (typeof name !== 'string' || name === '') throw invalidParams('Invalid params: "name" must be the name of a prompt');
    const prompt = this.byName.get(name);
    if (!prompt) throw invalidParams(`Unknown prompt: ${name}`);
    const args = this.checkArguments(prompt, rawArgs);
    try {
      prompt.validate?.(args);
    } catch (err) {
      if (isDomainError(err)) throw invalidParams(`Invalid params: ${err.message}`);
      throw err;
    }
    return { description: prompt.description, messages: [{ role: 'user', content: { type: 'text', text: prompt.render(args) } }] };
  }

  private checkArguments(prompt: PromptDefinition, rawArgs: unknown): Record<string, string> {
    if (rawArgs === undefined || rawArgs === null) rawArgs = {};
    if (typeof rawArgs !== 'object' || Array.isArray(rawArgs)) throw invalidParams('Invalid params: "arguments" must be an object');
    const given = rawArgs as Record<string, unknown>;
    const known = new Set(prompt.arguments.map((a) => a.name));
    const args: Record<string, string> = {};
    for (const [key, value] of Object.entries(given)) {
      if (!known.has(key)) {
        const accepted = prompt.arguments.map((a) => a.name);
        throw invalidParams(
          `Invalid params: unknown argument "${key}" for prompt ${prompt.name}` +
            (accepted.length ? `; accepted: ${accepted.join(', ')}` : '; it takes no arguments'),
        );
      }
      if (value === undefined || value === null) continue;
      // MCP prompt arguments are strings; an empty optional one means "not given".
      if (typeof value !== 'string') throw invalidParams(`Invalid params: argument "${key}" must be a string`);
      if (value !== '') args[key] = value;
    }
    for (const argument of prompt.arguments) {
      if (argument.required && args[argument.name] === undefined) {
        throw invalidParams(`Invalid params: missing required argument "${argument.name}" for prompt ${prompt.name}`);
      }
    }
    return args;
  }
}
