import { ConnectionQueries } from '../../../../application/connections/connection-queries.js';
import { connectionJson } from '../../../presenters/connections/connection-presenters.js';
import { answer, textOnly, warningLines } from './presenters.js';
import { object, READ_WAREHOUSE as READ } from './schemas.js';
import { ObjectList, Text } from './arguments.js';
import { defineTool } from './definition.js';

const CONNECTION = '"self" (default: your own dashboards\' metrics) or the id of a warehouse connection from list_connections.';

/** list_connections takes no arguments. */
export class NoInput {}

export class IntrospectInput {
  @Text({ optional: true, description: CONNECTION })
  connection?: string | null;
}

export class ValidateSqlInput {
  @Text({ description: 'One SELECT or WITH ... SELECT statement.' })
  sql!: string;

  @Text({ optional: true, description: CONNECTION })
  connection?: string | null;

  @ObjectList({
    optional: true,
    description: 'The spec\'s params the query names as :id (:id.from and :id.to for a date_range); each is checked and bound with its default.',
  })
  params?: object[] | null;
}

const connectionSchema = object(
  {
    id: { type: 'string' },
    label: { type: 'string' },
    kind: { type: 'string' },
    status: { type: 'string', enum: ['pending', 'active', 'failing', 'disabled'] },
    scope: { type: 'string', enum: ['personal', 'workspace'] },
    workspace_id: { type: ['string', 'null'] },
    last_tested_at: { type: ['string', 'null'] },
    last_error: { type: ['string', 'null'] },
    created_at: { type: 'string' },
  },
  ['id', 'label', 'kind', 'status', 'scope'],
);
const columnSchema = object({ name: { type: 'string' }, type: { type: 'string' }, nullable: { type: 'boolean' } }, ['name', 'type']);
const tableSchema = object(
  { schema: { type: 'string' }, name: { type: 'string' }, kind: { type: 'string', enum: ['table', 'view'] }, columns: { type: 'array', items: columnSchema } },
  ['schema', 'name', 'kind', 'columns'],
);

/** list_connections, introspect_schema, validate_cube_sql: scoped by the grant alone (no `workspace`). */
export const CONNECTION_TOOLS = [
  defineTool({
    name: 'list_connections',
    title: 'List warehouse connections',
    description:
      'List the warehouse connections this authorization can use (your personal ones, or the workspace\'s for a workspace authorization), ' +
      'with their ids and statuses. Connections are added in the web app. "self", your own metrics, is always available and not listed.',
    input: NoInput,
    outputSchema: object({ count: { type: 'integer' }, connections: { type: 'array', items: connectionSchema } }, ['count', 'connections']),
    annotations: READ,
    guide: { group: 'Data and refresh', when: 'to find warehouse connections a refreshable dashboard can query (they are added in the web app, never here)' },
    bind(container) {
      const queries = container.get(ConnectionQueries);
      return {
        async call(principal) {
          const connections = (await queries.list(principal)).map(connectionJson);
          // The spec's exact text alone, plus the (empty) structured copy: a tool that declares an
          // outputSchema must return structuredContent or the MCP SDK client refuses the result.
          if (connections.length === 0) return { ...textOnly('You have no warehouse connections.'), structuredContent: { count: 0, connections: [] } };
          const lines = [`${connections.length} warehouse connection(s):`, ...connections.map((c) => `- ${c.label} (${c.id}): ${c.status}`)];
          return answer(lines, { count: connections.length, connections }, true);
        },
      };
    },
  }),
  defineTool({
    name: 'introspect_schema',
    title: 'Show tables and columns of a connection',
    description:
      'List the tables (and views), columns and column types of a connection, to write dashboard SQL against. For "self": the views ' +
      'dashboards, daily_views, publishes and refresh_runs of your own account.',
    input: IntrospectInput,
    outputSchema: object({ connection: { type: 'string' }, count: { type: 'integer' }, tables: { type: 'array', items: tableSchema } }, ['connection', 'count', 'tables']),
    annotations: READ,
    guide: { group: 'Data and refresh', when: 'to see the tables and columns of a connection before writing SQL' },
    bind(container) {
      const queries = container.get(ConnectionQueries);
      return {
        async call(principal, input) {
          const r = await queries.introspect(principal, { connection: input.connection });
          const lines = [
            `${r.tables.length} table(s) on connection "${r.connection}":`,
            ...r.tables.map((t) => `- ${t.schema}.${t.name} (${t.columns.map((c) => `${c.name} ${c.type}`).join(', ')})`),
          ];
          return answer(lines, { connection: r.connection, count: r.tables.length, tables: r.tables }, true);
        },
      };
    },
  }),
  defineTool({
    name: 'validate_cube_sql',
    title: 'Check dashboard SQL',
    description:
      'Check one SQL query before putting it in a dashboard spec: it must be a single read-only SELECT (or WITH ... SELECT); it is ' +
      'then EXPLAINed on the connection, and the result columns and up to 5 sample rows are returned.',
    input: ValidateSqlInput,
    outputSchema: object(
      {
        valid: { type: 'boolean' },
        connection: { type: 'string' },
        statement: { type: 'string' },
        columns: { type: 'array', items: object({ name: { type: 'string' }, type: { type: 'string' } }, ['name', 'type']) },
        sample_rows: { type: 'array', items: { type: 'object' } },
        warnings: { type: 'array', items: { type: 'string' } },
      },
      ['valid', 'connection', 'statement', 'columns', 'sample_rows', 'warnings'],
    ),
    annotations: READ,
    guide: { group: 'Data and refresh', when: 'to check one read-only SELECT before publishing it in a spec' },
    bind(container) {
      const queries = container.get(ConnectionQueries);
      return {
        async call(principal, input) {
          const v = await queries.validate(principal, { sql: input.sql, connection: input.connection, params: input.params });
          const r = { valid: true, connection: v.connection, statement: v.statement, columns: v.columns, sample_rows: v.sampleRows, warnings: v.warnings };
          const lines = [
            `The SQL is valid on connection "${r.connection}": ${r.columns.length} column(s) (${r.columns.map((c) => `${c.name} ${c.type}`).join(', ')}), ${r.sample_rows.length} sample row(s).`,
            ...warningLines(r.warnings),
          ];
          return answer(lines, r, true);
        },
      };
    },
  }),
];
