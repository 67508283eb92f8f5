import { DashboardVersions } from '../../../../application/dashboards/dashboard-versions.js';
import { Settings } from '../../../../application/ports/settings.js';
import { answer, textOnly } from './presenters.js';
import { restoredJson, versionFoundJson, versionListJson, versionNamedJson } from '../../../presenters/dashboards/dashboard-presenters.js';
import { READ } from './schemas.js';
import { defineTool } from './definition.js';
import { bodyRequestOf, viewOf } from './dashboard-tools.js';
import { DashboardInput, GetVersionInput, NameVersionInput, VersionInput } from './dashboard-inputs.js';

const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };


const refOf = (input: DashboardInput) => ({ slug: input.slug, workspace: input.workspace });
const versionRefOf = (input: VersionInput) => ({ slug: input.slug, workspace: input.workspace, versionId: input.version_id });

/** The version tools: a dashboard's saved snapshots, listed, previewed, named and restored. */
export const VERSION_TOOLS = [
  defineTool({
    name: 'list_dashboard_versions',
    title: 'List dashboard versions',
    description: 'The saved versions (snapshots) of a dashboard, newest first, at most 50, without pagination. A dashboard that was published once has none.',
    input: DashboardInput,
    // No outputSchema on purpose: the spec answers a dashboard without snapshots with text only, and MCP
    // clients reject a result without structuredContent from a tool that declares one.
    annotations: READ,
    guide: { group: 'Versions', when: 'to see a dashboard\'s history, newest first' },
    bind(container) {
      const versions = container.get(DashboardVersions);
      const settings = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = versionListJson(settings, await versions.list(principal, refOf(input)));
          if (r.count === 0) {
            return textOnly(`"${r.slug}" has no saved versions yet: only its current version ${r.current_version_id} (${r.url}).`);
          }
          const lines = [
            `${r.count} saved version(s) of ${r.url}, newest first:`,
            ...r.versions.map((v) => `- ${v.version_id} (#${v.seq}, ${v.created_at}${v.name ? `, named "${v.name}"` : ''})`),
          ];
          return answer(lines, r, true);
        },
      };
    },
  }),
  defineTool({
    name: 'get_dashboard_version',
    title: 'Preview a dashboard version',
    description: 'One version of a dashboard with its files and, by default, the content of index.html, without restoring it.',
    input: GetVersionInput,
    annotations: READ,
    guide: { group: 'Versions', when: 'to look at an earlier version without restoring it' },
    bind(container) {
      const versions = container.get(DashboardVersions);
      const settings = container.get<Settings>(Settings);
      return {
        _meta: viewOf(container),
        async call(principal, input) {
          const r = versionFoundJson(settings, await versions.get(principal, { ...versionRefOf(input), ...bodyRequestOf(input) }));
          return answer([`Version ${r.version.version_id} (#${r.version.seq}) of ${r.url}${r.version.current ? ', the current one' : ''}.`], r);
        },
      };
    },
  }),
  defineTool({
    name: 'update_dashboard_version',
    title: 'Name a dashboard version',
    description: 'Name a version (protecting it from the automatic prune of old snapshots; at most 30 named), or pass name null to remove the name.',
    input: NameVersionInput,
    // Unnaming makes a snapshot prunable again, and the prune runs at once.
    annotations: { ...WRITE, destructiveHint: true, idempotentHint: true },
    guide: { group: 'Versions', when: 'to name a version the user wants to keep (named versions are never pruned)' },
    bind(container) {
      const versions = container.get(DashboardVersions);
      const settings = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = versionNamedJson(settings, await versions.name(principal, { ...versionRefOf(input), name: input.name }));
          const line = r.version.name
            ? `Named version ${r.version.version_id} of ${r.url} "${r.version.name}"; it is kept until unnamed.`
            : `Removed the name of version ${r.version.version_id} of ${r.url}; it may now be pruned like any snapshot.`;
          return answer([line], r);
        },
      };
    },
  }),
  defineTool({
    name: 'restore_dashboard_version',
    title: 'Restore a dashboard version',
    description: 'Make an earlier version\'s content the current one. The replaced content is kept as a snapshot, so a restore can be undone.',
    input: VersionInput,
    annotations: { ...WRITE },
    guide: { group: 'Versions', when: 'to roll back: the earlier content becomes current and the replaced one is kept' },
    bind(container) {
      const versions = container.get(DashboardVersions);
      const settings = container.get<Settings>(Settings);
      return {
        _meta: viewOf(container),
        async call(principal, input) {
          const r = restoredJson(settings, await versions.restore(principal, versionRefOf(input)));
          return answer([`Restored version ${r.restored_from} of "${r.dashboard.name}" as the new current version ${r.version_id}: ${r.dashboard.url}.`], r);
        },
      };
    },
  }),
];
