import { expect } from 'chai';
import { strFromU8, unzipSync } from 'fflate';
import { clientKitFiles, clientSetup, type ClientKitSettings } from '../../shells/client-kit/client-setup.js';
import { clientKitZip } from '../../shells/client-kit/kit-archive.js';
import { GUIDED_TOOL_NAMES } from '../../shells/client-kit/tool-guide.js';
import { TOOL_NAMES } from '../../shells/koa/mcp/tools/index.js';
import {
  checkClientKit,
  CLAUDE_CODE_MCP_JSON,
  CLAUDE_DESKTOP_CONFIG,
  CURSOR_MCP_JSON,
  expectShape,
  VSCODE_ADD_MCP_ARGUMENT,
  VSCODE_MCP_JSON,
} from '../support/client-shapes.js';

const SETTINGS: ClientKitSettings = { baseUrl: 'https://dash.example.org', appUrl: 'https://app.example.org', serviceName: 'service' };

/** The one generator of client snippets and the Claude Code kit, checked against each client's documented shape. */
describe('client setup generator', () => {
  const setup = clientSetup(SETTINGS);

  it('names the server after SERVICE_NAME at BASE_URL/mcp, with the tool names the service texts give', () => {
    expect(setup.mcpUrl).to.equal('https://dash.example.org/mcp');
    expect(setup.serverName).to.equal('service');
    expect(setup.toolPrefix).to.equal('mcp__service__');
    expect(setup.pluginToolPrefix).to.equal('mcp__plugin_service_service__');
    expect(setup.consentUrl).to.equal('https://app.example.org/consent');
    expect(setup.claudeCode.command).to.equal('claude mcp add --transport http service https://dash.example.org/mcp');
    expect(setup.claudeCode.userScopeCommand).to.equal('claude mcp add --transport http --scope user service https://dash.example.org/mcp');
  });

  it("writes each client's config in its documented shape, server `service` at the MCP URL", () => {
    expectShape(setup.claudeCode.projectConfig, CLAUDE_CODE_MCP_JSON, 'Claude Code .mcp.json');
    expect(setup.claudeCode.projectConfig.mcpServers.service).to.deep.equal({ type: 'http', url: setup.mcpUrl });
    expectShape(setup.cursor.config, CURSOR_MCP_JSON, 'Cursor mcp.json');
    expect(setup.cursor.config.mcpServers.service).to.deep.equal({ url: setup.mcpUrl });
    expectShape(setup.vscode.config, VSCODE_MCP_JSON, 'VS Code mcp.json');
    expect(setup.vscode.config.servers.service).to.deep.equal({ type: 'http', url: setup.mcpUrl });
    const added = /^code --add-mcp '(.*)'$/.exec(setup.vscode.command);
    expect(added, setup.vscode.command).to.not.equal(null);
    expectShape(JSON.parse(added![1]!), VSCODE_ADD_MCP_ARGUMENT, 'code --add-mcp');
    expect(JSON.parse(added![1]!)).to.deep.equal({ name: 'service', type: 'http', url: setup.mcpUrl });
    expectShape(setup.claudeDesktop.bridgeConfig, CLAUDE_DESKTOP_CONFIG, 'claude_desktop_config.json');
    expect(setup.claudeDesktop.bridgeConfig.mcpServers.service).to.deep.equal({ command: 'npx', args: ['-y', 'mcp-remote', setup.mcpUrl] });
  });

  it('the shapes refuse what the clients would not read (the checks can fail)', () => {
    expect(() => expectShape({ servers: { service: { url: setup.mcpUrl } } }, CURSOR_MCP_JSON, 'VS Code key in Cursor')).to.throw(/missing mcpServers/);
    expect(() => expectShape({ mcpServers: { service: { type: 'http', url: setup.mcpUrl } } }, VSCODE_MCP_JSON, 'Cursor key in VS Code')).to.throw(/missing servers/);
    expect(() => expectShape({ mcpServers: { service: { url: setup.mcpUrl } } }, CLAUDE_CODE_MCP_JSON, 'no type')).to.throw(/missing type/);
  });

  it('writes a Claude Code marketplace with the plugin `service` and a skill naming all 18 tools', () => {
    expect([...GUIDED_TOOL_NAMES].sort()).to.deep.equal([...TOOL_NAMES].sort());
    const files = clientKitFiles(SETTINGS, 'kit');
    expect(files.map((f) => f.path)).to.deep.equal([
      '.claude-plugin/marketplace.json',
      'plugins/service/.claude-plugin/plugin.json',
      'plugins/service/.mcp.json',
      'plugins/service/skills/dashboards/SKILL.md',
      'README.md',
    ]);
    const url = checkClientKit(new Map(files.map((f) => [f.path, f.content])), { serviceName: 'service', mcpUrl: setup.mcpUrl, toolNames: GUIDED_TOOL_NAMES });
    expect(url).to.equal('https://dash.example.org/mcp');
    const readme = files.find((f) => f.path === 'README.md')!.content;
    expect(readme).to.contain('claude plugin marketplace add ./kit');
    expect(readme).to.contain(`claude plugin install service@${setup.plugin.marketplace}`);
  });

  it('takes every host and name from settings, never a fixed one', () => {
    const other: ClientKitSettings = { baseUrl: 'http://mcp.internal.test:9000', appUrl: 'http://web.internal.test:9000', serviceName: 'acme-dash' };
    const otherSetup = clientSetup(other);
    expect(otherSetup.pluginToolPrefix).to.equal('mcp__plugin_acme-dash_acme-dash__');
    expect(otherSetup.plugin.marketplace).to.equal('acme-dash-mcp-internal-test-9000');
    const files = clientKitFiles(other);
    checkClientKit(new Map(files.map((f) => [f.path, f.content])), { serviceName: 'acme-dash', mcpUrl: 'http://mcp.internal.test:9000/mcp', toolNames: GUIDED_TOOL_NAMES });
    const everything = [JSON.stringify(otherSetup), ...files.map((f) => f.content)].join('\n');
    const urls = everything.match(/https?:\/\/[^\s"'`)<>]+/g) ?? [];
    expect(urls.length).to.be.greaterThan(5);
    for (const found of urls) expect(found, found).to.match(/^http:\/\/(mcp|web)\.internal\.test:9000(\/|$)/);
    expect(everything).to.not.match(/\bservice\b|localhost|example\.org/);
  });

  it('refuses to write a plugin for a SERVICE_NAME Claude Code would not accept, and says why', () => {
    const odd: ClientKitSettings = { ...SETTINGS, serviceName: 'My_Service' };
    const problem = 'SERVICE_NAME "My_Service" cannot name a Claude Code plugin: use lowercase letters, digits and single dashes';
    expect(clientSetup(odd).pluginProblem).to.equal(problem);
    expect(() => clientKitFiles(odd)).to.throw(problem);
    expect(setup.pluginProblem).to.equal(null);
  });

  it('zips the same kit under one folder', () => {
    const entries = unzipSync(clientKitZip(SETTINGS));
    const expected = clientKitFiles(SETTINGS);
    expect(Object.keys(entries).sort()).to.deep.equal(expected.map((f) => `service-client-kit/${f.path}`).sort());
    for (const file of expected) expect(strFromU8(entries[`service-client-kit/${file.path}`]!)).to.equal(file.content);
  });
});
