/**
 * When an assistant should reach for each MCP tool, in the order a person usually needs them. The
 * plugin's skill is written from this list; a test holds it equal to the server's tools/list, so a
 * tool added or renamed on the server cannot be missing here.
 */
export interface ToolUse {
  tool: string;
  when: string;
}

export interface ToolGroup {
  title: string;
  tools: ToolUse[];
}

export const TOOL_GUIDE: readonly ToolGroup[] = [
  {
    title: 'Who and where',
    tools: [
      { tool: 'whoami', when: 'first, to see the handle, the plan and which account or workspace this authorization acts on' },
      { tool: 'list_workspaces', when: 'to see the workspaces the user belongs to and which of them this authorization may target' },
    ],
  },
  {
    title: 'Publish and change',
    tools: [
      { tool: 'publish_dashboard', when: 'to create a dashboard or replace its content: a self-contained HTML page (`body`) or a `spec`; use `dry_run` to check without writing' },
      { tool: 'update_dashboard', when: 'to change name, tags, chart, visibility or connection without new content' },
      { tool: 'rename_dashboard', when: 'to give a dashboard a new slug; the old URL keeps redirecting' },
      { tool: 'delete_dashboard', when: 'only when the user explicitly asks to delete; it cannot be undone' },
    ],
  },
  {
    title: 'Find and read',
    tools: [
      { tool: 'list_dashboards', when: 'to find dashboards, filtered by tag or exact slug; follow `next_cursor` for more' },
      { tool: 'get_dashboard', when: 'for one dashboard\'s URL, metadata and files; `include_body` reads the content before you edit it' },
    ],
  },
  {
    title: 'Versions',
    tools: [
      { tool: 'list_dashboard_versions', when: 'to see a dashboard\'s history, newest first' },
      { tool: 'get_dashboard_version', when: 'to look at an earlier version without restoring it' },
      { tool: 'update_dashboard_version', when: 'to name a version the user wants to keep (named versions are never pruned)' },
      { tool: 'restore_dashboard_version', when: 'to roll back: the earlier content becomes current and the replaced one is kept' },
    ],
  },
  {
    title: 'Data and refresh',
    tools: [
      { tool: 'list_connections', when: 'to find warehouse connections a refreshable dashboard can query (they are added in the web app, never here)' },
      { tool: 'introspect_schema', when: 'to see the tables and columns of a connection before writing SQL' },
      { tool: 'validate_cube_sql', when: 'to check one read-only SELECT before publishing it in a spec' },
      { tool: 'set_refresh_schedule', when: 'to refresh a dashboard on a 5-field cron schedule, or to clear the schedule' },
      { tool: 'trigger_refresh', when: 'to refresh a personal dashboard now' },
      { tool: 'get_refresh_status', when: 'to see the schedule, the next run and how the last run went' },
    ],
  },
];

export const GUIDED_TOOL_NAMES: readonly string[] = TOOL_GUIDE.flatMap((group) => group.tools.map((use) => use.tool));
