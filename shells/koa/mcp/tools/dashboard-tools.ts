import { PublishDashboard } from '../../../../application/dashboards/publish-dashboard.js';
import { UpdateDashboard } from '../../../../application/dashboards/update-dashboard.js';
import { RenameDashboard } from '../../../../application/dashboards/rename-dashboard.js';
import { DeleteDashboard } from '../../../../application/dashboards/delete-dashboard.js';
import { ListDashboards } from '../../../../application/dashboards/list-dashboards.js';
import { GetDashboard } from '../../../../application/dashboards/get-dashboard.js';
import { ManageShareLinks } from '../../../../application/sharing/manage-share-links.js';
import { AlertStates } from '../../../../application/alerts/alert-states.js';
import { subdomainOf } from '../../../../domain/scope.js';
import { Settings } from '../../../../application/ports/settings.js';
import type { Container } from 'inversify';
import { ScopeResolver } from '../../../../application/scope-resolver.js';
import { ListAnswerCache } from '../list-answer-cache.js';
import { dashboardViewToolMeta } from '../ui/dashboard-view.js';
import { answer, warningLines } from './presenters.js';
import {
  deletedJson,
  foundJson,
  pageJson,
  publishJson,
  renamedJson,
  updatedJson,
} from '../../../presenters/dashboards/dashboard-presenters.js';
import { shareLinksJson, shareLinksLines } from '../../../presenters/sharing/share-mention.js';
import { alertLines, alertStatesJson } from '../../../presenters/alerts/alert-presenters.js';
import { dashboardSchema, object, READ, specSummarySchema } from './schemas.js';
import { defineTool } from './definition.js';
import type { SpecSummary } from '../../../../domain/spec-summary.js';
import { DashboardInput, GetInput, GetVersionInput, ListInput, PublishInput, RenameInput, UpdateInput } from './dashboard-inputs.js';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };

const publishOutput = object(
  {
    mode: { type: 'string', enum: ['body', 'spec'] },
    dry_run: { type: 'boolean' },
    created: { type: 'boolean' },
    version_id: { type: ['string', 'null'] },
    path: { type: 'string' },
    bytes: { type: 'integer' },
    url: { type: 'string' },
    dashboard: { anyOf: [dashboardSchema, { type: 'null' }] },
    warnings: { type: 'array', items: { type: 'string' } },
    summary: specSummarySchema,
  },
  ['mode', 'dry_run', 'created', 'version_id', 'path', 'bytes', 'url', 'warnings'],
);

const listOutput = object(
  { count: { type: 'integer' }, dashboards: { type: 'array', items: dashboardSchema }, next_cursor: { type: ['string', 'null'] } },
  ['count', 'dashboards', 'next_cursor'],
);


/** The tools whose answer is one dashboard name the MCP Apps view that shows it (ui/dashboard-view.ts). */
export const viewOf = (container: Container) => dashboardViewToolMeta(container.get<Settings>(Settings).serviceName);

const metadataOf = (input: PublishInput | UpdateInput) => ({
  name: input.name,
  tags: input.tags,
  chart: input.chart,
  visibility: input.visibility,
  connection: input.connection,
});

const refOf = (input: DashboardInput) => ({ slug: input.slug, workspace: input.workspace });
export const bodyRequestOf = (input: GetInput | GetVersionInput) => ({ includeBody: input.include_body, filename: input.filename });

/** How a spec summary reads in an answer's text; the JSON carries the outline itself. */
const summaryLine = (s: SpecSummary) =>
  `Spec: ${s.panels.length} panel(s), ${s.queries.length} query(ies), ${s.data.length} inline data set(s), ${s.params.length} param(s), ${s.alerts.length} alert(s), ${s.bytes} bytes; change it with publish_dashboard's patch.`;

/**
 * Moves `body` out of the input into the command: once the use case has decoded the body (up to 5 MiB, as a
 * string or as the bytes the endpoint decoded it into, parse-message.ts) nothing holds it twice for the rest
 * of the publish (docs/decisions/0043-large-body-decoding.md).
 */
function publishCommandOf(input: PublishInput) {
  const { path, body, encoding, spec, patch, workspace } = input;
  input.body = undefined;
  return { ...metadataOf(input), workspace, path, body, encoding, spec, patch, dryRun: input.dry_run };
}

/** The dashboard tools: each one names its use case and says how the answer reads. */
export const DASHBOARD_TOOLS = [
  defineTool({
    name: 'publish_dashboard',
    title: 'Publish a dashboard',
    description:
      'Publish a dashboard file (body mode) or a dashboard spec (spec mode) and get its URL. Body mode writes one file per call at ' +
      'path "<slug>/<filename>" (a bare "<slug>" means index.html); other files of the dashboard are kept. Spec mode renders a ' +
      'spec {title, queries?, data?, panels[]} into index.html + data.json; a spec with queries is refreshable. Every publish makes ' +
      'a new version. dry_run checks the arguments, the spec and each query (prepared on its connection, no rows fetched) and ' +
      'writes nothing. A body is served exactly as published, with no Content-Security-Policy added. Never send the handle in the path. ' +
      'To change a large spec dashboard, send patch (operations by panel or query id) instead of the whole spec: read get_dashboard with summary: true first.',
    input: PublishInput,
    outputSchema: publishOutput,
    annotations: { ...WRITE, idempotentHint: false },
    guide: { group: 'Publish and change', when: 'to create a dashboard or replace its content: a self-contained HTML page (`body`) or a `spec`; use `dry_run` to check without writing' },
    bind(container) {
      const publish = container.get(PublishDashboard);
      const settings = container.get<Settings>(Settings);
      return {
        _meta: viewOf(container),
        async call(principal, input) {
          const r = publishJson(settings, await publish.execute(principal, publishCommandOf(input)));
          const lines = r.dry_run
            ? [`Dry run: publishing ${r.path} (${r.bytes} bytes) would ${r.created ? 'create' : 'update'} ${r.url}. Nothing was written.`]
            : [`${r.created ? 'Published' : 'Updated'} "${r.dashboard?.name}" at ${r.url} (version ${r.version_id}).`];
          if (r.summary) lines.push(summaryLine(r.summary));
          // The spec names the body path for structuredContent; the spec path returns it too, because a
          // tool with an outputSchema must (MCP), and the official SDK client rejects a result without it.
          return answer([...lines, ...warningLines(r.warnings)], { ...r }, true);
        },
      };
    },
  }),
  defineTool({
    name: 'update_dashboard',
    title: 'Update dashboard metadata',
    description:
      'Change a dashboard\'s name, tags, chart, visibility or connection without publishing content. Omitted or null fields keep their value; tags: [] clears tags.',
    input: UpdateInput,
    annotations: { ...WRITE, idempotentHint: true },
    guide: { group: 'Publish and change', when: 'to change name, tags, chart, visibility or connection without new content' },
    bind(container) {
      const update = container.get(UpdateDashboard);
      const settings = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = updatedJson(settings, await update.execute(principal, { ...refOf(input), ...metadataOf(input) }));
          return answer([`Updated ${r.changed.join(', ')} of "${r.dashboard.name}" at ${r.dashboard.url}.`, ...warningLines(r.warnings)], r);
        },
      };
    },
  }),
  defineTool({
    name: 'rename_dashboard',
    title: 'Rename a dashboard',
    description: 'Give a dashboard a new slug. The old slug stays as an alias that redirects (301) to the new URL.',
    input: RenameInput,
    annotations: { ...WRITE },
    guide: { group: 'Publish and change', when: 'to give a dashboard a new slug; the old URL keeps redirecting' },
    bind(container) {
      const rename = container.get(RenameDashboard);
      const settings = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = renamedJson(settings, await rename.execute(principal, { ...refOf(input), newSlug: input.new_slug }));
          return answer([`Renamed "${r.old_slug}" to "${r.dashboard.slug}": ${r.dashboard.url} (the old URL ${r.old_url} now redirects there).`], r);
        },
      };
    },
  }),
  defineTool({
    name: 'delete_dashboard',
    title: 'Delete a dashboard',
    description: 'Delete a dashboard with all its versions and aliases. This cannot be undone.',
    input: DashboardInput,
    annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
    guide: { group: 'Publish and change', when: 'only when the user explicitly asks to delete; it cannot be undone' },
    bind(container) {
      const remove = container.get(DeleteDashboard);
      const settings = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = deletedJson(settings, await remove.execute(principal, refOf(input)));
          return answer([`Deleted ${r.url} and its ${r.versions_deleted} version(s).`], r);
        },
      };
    },
  }),
  defineTool({
    name: 'list_dashboards',
    title: 'List dashboards',
    description: 'List dashboards in slug order, paginated by an opaque cursor (next_cursor). Filter by tag or by exact slug.',
    input: ListInput,
    outputSchema: listOutput,
    annotations: READ,
    guide: { group: 'Find and read', when: 'to find dashboards, filtered by tag or exact slug; follow `next_cursor` for more' },
    bind(container) {
      const list = container.get(ListDashboards);
      const scopes = container.get(ScopeResolver);
      const listCache = container.get(ListAnswerCache);
      const settings = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const query = { workspace: input.workspace, cursor: input.cursor, limit: input.limit, slug: input.slug, tag: input.tag };
          // Resolved, membership checked, on every call; only then may a remembered answer be used.
          const target = await scopes.resolve(principal, query.workspace);
          return listCache.answer(target, query, async () => {
            const page = pageJson(settings, await list.forTarget(target, query));
            const lines =
              page.count === 0
                ? ['No dashboards yet.']
                : [`${page.count} dashboard(s):`, ...page.dashboards.map((d) => `- ${d.name}: ${d.url}`)];
            if (page.next_cursor) lines.push(`More: pass cursor "${page.next_cursor}".`);
            return answer(lines, page, true);
          });
        },
      };
    },
  }),
  defineTool({
    name: 'get_dashboard',
    title: 'Get a dashboard',
    description:
      'A dashboard\'s metadata, URL, files and current version; with include_body, the content of one file (index.html by default). ' +
      'With summary: true, a spec dashboard\'s outline without data rows, to change it through publish_dashboard\'s patch.',
    input: GetInput,
    annotations: READ,
    guide: { group: 'Find and read', when: 'for one dashboard\'s URL, metadata and files; `include_body` reads the content before you edit it' },
    bind(container) {
      const get = container.get(GetDashboard);
      const shares = container.get(ManageShareLinks);
      const alertStates = container.get(AlertStates);
      const settings = container.get<Settings>(Settings);
      return {
        _meta: viewOf(container),
        async call(principal, input) {
          const found = await get.execute(principal, { ...refOf(input), ...bodyRequestOf(input), summary: input.summary });
          const shareLinks = shareLinksJson(settings, subdomainOf(found.target), found.dashboard.slug, await shares.activeCount(found.dashboard));
          // Only when the spec declares alerts, so other dashboards' answers stay as they were.
          const isSpec = 'kind' in found.current ? found.current.kind === 'spec' : found.current.spec !== null;
          const alerts = isSpec ? alertStatesJson(await alertStates.of(found.dashboard)) : [];
          const r = { ...foundJson(settings, found), share_links: shareLinks, ...(alerts.length > 0 ? { alerts } : {}) };
          const lines = [`"${r.dashboard.name}" at ${r.dashboard.url} (${r.dashboard.visibility}, version ${r.dashboard.current_version_id}).`];
          if (r.alias_of) lines.push(`"${input.slug}" is an old slug of this dashboard; its slug is now "${r.alias_of}".`);
          lines.push(...shareLinksLines(shareLinks));
          lines.push(...alertLines(alerts));
          if (found.summary) lines.push(summaryLine(found.summary));
          else if (found.summary === null) lines.push('This dashboard was published as a file and has no spec, so there is no summary.');
          return answer(lines, r);
        },
      };
    },
  }),
];
