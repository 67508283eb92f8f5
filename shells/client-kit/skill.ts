import { TOOL_GUIDE } from './tool-guide.js';

export const SKILL_NAME = 'dashboards';

/**
 * The plugin's skill: a SKILL.md whose frontmatter tells Claude Code when to load it, and whose body
 * says which tool fits which task, with the names as the plugin shows them. The standing rules of
 * the service itself come from the server's `instructions`; this only routes tasks to tools.
 */
/** What the skill names from the client setup (client-setup.ts), declared here so the two files do not import each other. */
export type SkillSetup = { serverName: string; pluginToolPrefix: string; consentUrl: string };

export function skillText(setup: SkillSetup, appUrl: string): string {
  const name = setup.serverName;
  const prefix = setup.pluginToolPrefix;
  const description =
    `Publish, find, version and refresh web dashboards on ${name} (${appUrl}) with the ${prefix}* tools. ` +
    'Use when the user asks to publish a chart, report or HTML page as a shareable link, to change, rename, roll back or delete a dashboard, or to refresh one from a database.';
  const groups = TOOL_GUIDE.map(
    (group) => `## ${group.title}\n\n${group.tools.map((use) => `- \`${prefix}${use.tool}\`: ${use.when}.`).join('\n')}`,
  ).join('\n\n');
  return `---
name: ${SKILL_NAME}
description: ${JSON.stringify(description)}
---

# Dashboards on ${name}

${name} turns pages you write into dashboards at stable URLs, kept in versions. Its tools come from
the \`${name}\` MCP server of this plugin (bare names in tools/list; \`${prefix}<tool>\` here).

Before the first call the user signs in once in the browser (${setup.consentUrl}) and chooses a
target: their personal account or one workspace. If a call answers with an authorization error,
ask them to reconnect; do not retry with other workspace values.

${groups}

## Habits

- Give the user the URL exactly as a result returns it; never build one yourself.
- Read before you overwrite: \`${prefix}get_dashboard\` with \`include_body\`, then publish the edited page.
- A result with \`isError\` says what is wrong: fix that argument, or pass the text on to the user.
- Ask before \`${prefix}delete_dashboard\`; prefer \`${prefix}restore_dashboard_version\` to undo a change.
`;
}
