import type { Container } from 'inversify';
import type { ToolDefinition } from '../tool-registry.js';
import { PublishDashboard } from '../../../../application/dashboards/publish-dashboard.js';
import { UpdateDashboard } from '../../../../application/dashboards/update-dashboard.js';
import { RenameDashboard } from '../../../../application/dashboards/rename-dashboard.js';
import { DeleteDashboard } from '../../../../application/dashboards/delete-dashboard.js';
import { ListDashboards, MAX_PAGE_SIZE } from '../../../../application/dashboards/list-dashboards.js';
import { GetDashboard } from '../../../../application/dashboards/get-dashboard.js';
import { DashboardVersions } from '../../../../application/dashboards/dashboard-versions.js';
import { Settings } from '../../../../application/ports/settings.js';
import { ScopeResolver } from '../../../../application/scope-resolver.js';
import { ListAnswerCache } from '../list-answer-cache.js';
import { dashboardViewToolMeta } from '../ui/dashboard-view.js';
import { answer, textOnly, warningLines } from './presenters.js';
import {
  deletedJson,
  foundJson,
  pageJson,
  publishJson,
  renamedJson,
  restoredJson,
  updatedJson,
  versionFoundJson,
  versionListJson,
  versionNamedJson,
} from '../../../presenters/dashboards/dashboard-presenters.js';
import { bodyRequest, dashboardRef, listQuery, metadataInput, publishCommand, renameCommand, versionRef } from './commands.js';
import { dashboardSchema, nullableString, object, READ, slugArg, versionIdArg, workspaceArg } from './schemas.js';

export type ToolSpec = ToolDefinition;

const metadataArgs = {
  name: nullableString('Display name. Omit or null to keep the current one; cannot be cleared.'),
  tags: { type: ['array', 'null'], items: { type: 'string' }, description: 'Tags. [] clears them; omit or null to keep.' },
  chart: nullableString('Chart kind label, e.g. "line". Omit or null to keep.'),
  visibility: { type: ['string', 'null'], enum: ['public', 'private', null], description: 'public, or private (members only).' },
  connection: nullableString('"self" (default) or the id of a warehouse connection, for refreshable dashboards.'),
};

/** The spec words these refusals itself (`name must be a non-empty string`), whatever the wrong value's type. */
const METADATA_SELF_CHECKED = ['name', 'chart'] as const;

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
  },
  ['mode', 'dry_run', 'created', 'version_id', 'path', 'bytes', 'url', 'warnings'],
);

const listOutput = object(
  { count: { type: 'integer' }, dashboards: { type: 'array', items: dashboardSchema }, next_cursor: { type: ['string', 'null'] } },
  ['count', 'dashboards', 'next_cursor'],
);


/** The dashboard tools: each one names its use case and says how the answer reads. */
export function dashboardTools(container: Container): ToolSpec[] {
  const publish = container.get(PublishDashboard);
  const update = container.get(UpdateDashboard);
  const rename = container.get(RenameDashboard);
  const remove = container.get(DeleteDashboard);
  const list = container.get(ListDashboards);
  const scopes = container.get(ScopeResolver);
  const listCache = container.get(ListAnswerCache);
  const get = container.get(GetDashboard);
  const versions = container.get(DashboardVersions);
  // The four tools whose answer is one dashboard name the MCP Apps view that shows it (ui/dashboard-view.ts).
  const settings = container.get<Settings>(Settings);
  const view = dashboardViewToolMeta(settings.serviceName);

  return [
    {
      name: 'publish_dashboard',
      title: 'Publish a dashboard',
      description:
        'Publish a dashboard file (body mode) or a dashboard spec (spec mode) and get its URL. Body mode writes one file per call at ' +
        'path "<slug>/<filename>" (a bare "<slug>" means index.html); other files of the dashboard are kept. Spec mode renders a ' +
        'spec {title, queries?, data?, panels[]} into index.html + data.json; a spec with queries is refreshable. Every publish makes ' +
        'a new version. dry_run validates everything and writes nothing. Never send the handle in the path.',
      inputSchema: object(
        {
          path: { type: 'string', description: '"<slug>" or "<slug>/<filename>".' },
          body: { type: 'string', description: 'File content (body mode), at most 5242880 bytes.' },
          encoding: { type: 'string', enum: ['utf8', 'base64'], description: 'Encoding of body. Default utf8.' },
          spec: { type: ['object', 'string'], description: 'Dashboard spec (spec mode), as an object or JSON string.' },
          ...metadataArgs,
          dry_run: { type: 'boolean', description: 'Validate only; nothing is written.' },
          workspace: workspaceArg,
        },
        ['path'],
      ),
      outputSchema: publishOutput,
      annotations: { ...WRITE, idempotentHint: false },
      _meta: view,
      useCaseChecked: METADATA_SELF_CHECKED,
      async call(principal, args) {
        const r = publishJson(settings, await publish.execute(principal, publishCommand(args)));
        const lines = r.dry_run
          ? [`Dry run: publishing ${r.path} (${r.bytes} bytes) would ${r.created ? 'create' : 'update'} ${r.url}. Nothing was written.`]
          : [`${r.created ? 'Published' : 'Updated'} "${r.dashboard?.name}" at ${r.url} (version ${r.version_id}).`];
        // The spec names the body path for structuredContent; the spec path returns it too, because a
        // tool with an outputSchema must (MCP), and the official SDK client rejects a result without it.
        return answer([...lines, ...warningLines(r.warnings)], { ...r }, true);
      },
    },
    {
      name: 'update_dashboard',
      title: 'Update dashboard metadata',
      description:
        'Change a dashboard\'s name, tags, chart, visibility or connection without publishing content. Omitted or null fields keep their value; tags: [] clears tags.',
      inputSchema: object({ slug: slugArg, ...metadataArgs, workspace: workspaceArg }, ['slug']),
      annotations: { ...WRITE, idempotentHint: true },
      useCaseChecked: METADATA_SELF_CHECKED,
      async call(principal, args) {
        const r = updatedJson(settings, await update.execute(principal, { ...dashboardRef(args), ...metadataInput(args) }));
        return answer([`Updated ${r.changed.join(', ')} of "${r.dashboard.name}" at ${r.dashboard.url}.`, ...warningLines(r.warnings)], r);
      },
    },
    {
      name: 'rename_dashboard',
      title: 'Rename a dashboard',
      description: 'Give a dashboard a new slug. The old slug stays as an alias that redirects (301) to the new URL.',
      inputSchema: object({ slug: slugArg, new_slug: slugArg, workspace: workspaceArg }, ['slug', 'new_slug']),
      annotations: { ...WRITE },
      async call(principal, args) {
        const r = renamedJson(settings, await rename.execute(principal, renameCommand(args)));
        return answer([`Renamed "${r.old_slug}" to "${r.dashboard.slug}": ${r.dashboard.url} (the old URL ${r.old_url} now redirects there).`], r);
      },
    },
    {
      name: 'delete_dashboard',
      title: 'Delete a dashboard',
      description: 'Delete a dashboard with all its versions and aliases. This cannot be undone.',
      inputSchema: object({ slug: slugArg, workspace: workspaceArg }, ['slug']),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
      async call(principal, args) {
        const r = deletedJson(settings, await remove.execute(principal, dashboardRef(args)));
        return answer([`Deleted ${r.url} and its ${r.versions_deleted} version(s).`], r);
      },
    },
    {
      name: 'list_dashboards',
      title: 'List dashboards',
      description: 'List dashboards in slug order, paginated by an opaque cursor (next_cursor). Filter by tag or by exact slug.',
      inputSchema: object({
        cursor: { type: 'string', description: 'next_cursor of a previous answer.' },
        limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE, description: 'Page size, 1 to 100 (default 50).' },
        tag: { type: 'string' },
        slug: slugArg,
        workspace: workspaceArg,
      }),
      outputSchema: listOutput,
      annotations: READ,
      async call(principal, args) {
        const query = listQuery(args);
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
    },
    {
      name: 'get_dashboard',
      title: 'Get a dashboard',
      description: 'A dashboard\'s metadata, URL, files and current version; with include_body, the content of one file (index.html by default).',
      inputSchema: object({ slug: slugArg, include_body: { type: 'boolean' }, filename: { type: 'string' }, workspace: workspaceArg }, ['slug']),
      annotations: READ,
      _meta: view,
      async call(principal, args) {
        const r = foundJson(settings, await get.execute(principal, { ...dashboardRef(args), ...bodyRequest(args) }));
        const lines = [`"${r.dashboard.name}" at ${r.dashboard.url} (${r.dashboard.visibility}, version ${r.dashboard.current_version_id}).`];
        if (r.alias_of) lines.push(`"${args.slug}" is an old slug of this dashboard; its slug is now "${r.alias_of}".`);
        return answer(lines, r);
      },
    },
    {
      name: 'list_dashboard_versions',
      title: 'List dashboard versions',
      description: 'The saved versions (snapshots) of a dashboard, newest first, at most 50, without pagination. A dashboard that was published once has none.',
      inputSchema: object({ slug: slugArg, workspace: workspaceArg }, ['slug']),
      // No outputSchema on purpose: the spec answers a dashboard without snapshots with text only, and MCP
      // clients reject a result without structuredContent from a tool that declares one.
      annotations: READ,
      async call(principal, args) {
        const r = versionListJson(settings, await versions.list(principal, dashboardRef(args)));
        if (r.count === 0) {
          return textOnly(`"${r.slug}" has no saved versions yet: only its current version ${r.current_version_id} (${r.url}).`);
        }
        const lines = [
          `${r.count} saved version(s) of ${r.url}, newest first:`,
          ...r.versions.map((v) => `- ${v.version_id} (#${v.seq}, ${v.created_at}${v.name ? `, named "${v.name}"` : ''})`),
        ];
        return answer(lines, r, true);
      },
    },
    {
      name: 'get_dashboard_version',
      title: 'Preview a dashboard version',
      description: 'One version of a dashboard with its files and, by default, the content of index.html, without restoring it.',
      inputSchema: object({ slug: slugArg, version_id: versionIdArg, include_body: { type: 'boolean' }, filename: { type: 'string' }, workspace: workspaceArg }, [
        'slug',
        'version_id',
      ]),
      annotations: READ,
      _meta: view,
      async call(principal, args) {
        const r = versionFoundJson(settings, await versions.get(principal, { ...versionRef(args), ...bodyRequest(args) }));
        return answer([`Version ${r.version.version_id} (#${r.version.seq}) of ${r.url}${r.version.current ? ', the current one' : ''}.`], r);
      },
    },
    {
      name: 'update_dashboard_version',
      title: 'Name a dashboard version',
      description: 'Name a version (protecting it from the automatic prune of old snapshots; at most 30 named), or pass name null to remove the name.',
      inputSchema: object({ slug: slugArg, version_id: versionIdArg, name: nullableString('The name, or null to unname.'), workspace: workspaceArg }, [
        'slug',
        'version_id',
        'name',
      ]),
      // Unnaming makes a snapshot prunable again, and the prune runs at once.
      annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
      async call(principal, args) {
        const r = versionNamedJson(settings, await versions.name(principal, { ...versionRef(args), name: args.name as string | null }));
        const line = r.version.name
          ? `Named version ${r.version.version_id} of ${r.url} "${r.version.name}"; it is kept until unnamed.`
          : `Removed the name of version ${r.version.version_id} of ${r.url}; it may now be pruned like any snapshot.`;
        return answer([line], r);
      },
    },
    {
      name: 'restore_dashboard_version',
      title: 'Restore a dashboard version',
      description: 'Make an earlier version\'s content the current one. The replaced content is kept as a snapshot, so a restore can be undone.',
      inputSchema: object({ slug: slugArg, version_id: versionIdArg, workspace: workspaceArg }, ['slug', 'version_id']),
      annotations: { ...WRITE },
      _meta: view,
      async call(principal, args) {
        const r = restoredJson(settings, await versions.restore(principal, versionRef(args)));
        return answer([`Restored version ${r.restored_from} of "${r.dashboard.name}" as the new current version ${r.version_id}: ${r.dashboard.url}.`], r);
      },
    },
  ];
}
