import { MAX_PANELS, MAX_TEXT_CHARS, PANEL_TYPES, panelFields, type PanelType } from '../../../../domain/dashboard-spec.js';
import { ID_PATTERN } from '../../../../domain/spec-reading.js';
import { MAX_LABEL_CHARS, MAX_LISTED_COLUMNS } from '../../../../domain/spec-display.js';
import { ALERT_OPERATORS, ALERT_ROWS, MAX_ALERT_MESSAGE_CHARS, MAX_ALERTS } from '../../../../domain/spec-alerts.js';
import { MAX_OPTIONS, MAX_PARAMS, MAX_PATTERN, ONLY, PARAM_ID, PARAM_TYPES, type ParamType } from '../../../../domain/spec-params.js';
import { FORMAT_TYPES } from '../../../../domain/number-format.js';
import { GOOD_DIRECTIONS } from '../../../../domain/spec-stat.js';
import type { JsonSchema } from './arguments.js';

/**
 * The dashboard spec as JSON Schema, for publish_dashboard's inputSchema: which fields each panel type takes
 * comes from the domain's own rule (panelFields), so the schema an AI client reads and the parser that judges
 * the spec cannot drift apart. Only the object form is described; the JSON-string form is the same spec.
 */

const ID = { type: 'string', pattern: ID_PATTERN.source };
const COLUMN = { type: 'string', minLength: 1 };

const FORMAT: JsonSchema = {
  anyOf: [
    { enum: [...FORMAT_TYPES] },
    {
      type: 'object',
      properties: {
        type: { enum: [...FORMAT_TYPES] },
        currency: { type: 'string', pattern: '^[A-Za-z]{3}$', description: 'ISO 4217 code; the currency type only.' },
        decimals: { type: 'integer', minimum: 0, maximum: 6 },
        prefix: { type: 'string', maxLength: 16 },
        suffix: { type: 'string', maxLength: 16 },
      },
      required: ['type'],
      additionalProperties: false,
    },
  ],
  description: 'How the numbers read: percent reads a ratio (0.021 is 2.1 %), duration reads seconds, bytes uses KiB/MiB.',
};

const PANEL_FIELDS: Record<string, JsonSchema> = {
  id: { ...ID, description: 'Stable id of the panel, unique in the spec; later changes address the panel by it.' },
  title: { type: 'string', description: 'Heading shown above the panel.' },
  width: { type: 'integer', minimum: 1, maximum: 12, description: 'Share of a 12-column row (default 12).' },
  query: { ...ID, description: 'Key of spec.queries or spec.data whose rows the panel shows.' },
  x: { ...COLUMN, description: 'Column for the x axis: categories, dates or numbers (pie: slice labels).' },
  y: {
    anyOf: [COLUMN, { type: 'array', items: COLUMN, minItems: 1 }],
    description: 'Column (or list of columns) of the values drawn (pie: slice sizes; a single column with series).',
  },
  series: { ...COLUMN, description: 'Column whose values split the rows into one series each.' },
  value: { ...COLUMN, description: 'Column of the number shown; the first row is used.' },
  text: { type: 'string', minLength: 1, maxLength: MAX_TEXT_CHARS, description: 'Markdown shown as is (no HTML).' },
  format: FORMAT,
  compare: {
    anyOf: [
      COLUMN,
      { type: 'object', properties: { column: COLUMN, good: { enum: [...GOOD_DIRECTIONS], description: 'Which way is an improvement (default up).' } }, required: ['column'], additionalProperties: false },
    ],
    description: 'Column of the same first row holding the previous value: the tile shows the change with an arrow, coloured by whether it moved the good way.',
  },
  sparkline: { ...COLUMN, description: 'Column drawn as a small trend line under the value, from the last row to the first (the tile shows the first row, so order the latest first).' },
  x_title: { type: 'string', maxLength: MAX_LABEL_CHARS, description: 'Title under the x axis.' },
  y_title: { type: 'string', maxLength: MAX_LABEL_CHARS, description: 'Title beside the y axis.' },
  y2: {
    type: 'array', items: COLUMN, minItems: 1,
    description: 'Columns of y drawn against a second axis on the right, for values of a very different scale (not with series).',
  },
  columns: {
    type: 'array', minItems: 1, maxItems: MAX_LISTED_COLUMNS,
    items: {
      type: 'object',
      properties: {
        id: { ...COLUMN, description: 'Column of the query.' },
        label: { type: 'string', maxLength: MAX_LABEL_CHARS, description: 'Header shown (default: the column name).' },
        format: { ...FORMAT, description: 'How this column\'s numbers read, over the panel\'s format.' },
      },
      required: ['id'],
      additionalProperties: false,
    },
    description: 'The columns shown, in order, with their header labels and number formats (default: every column, headed by its name).',
  },
};

const PANEL_TITLES: Record<PanelType, string> = {
  line: 'Line chart', bar: 'Bar chart', area: 'Area chart', pie: 'Pie chart', scatter: 'Scatter plot',
  table: 'Table of the query\'s columns', stat: 'One big number', text: 'Markdown text',
};

function panelSchema(type: PanelType): JsonSchema {
  const { required, optional } = panelFields(type);
  const properties: Record<string, JsonSchema> = { type: { const: type } };
  for (const key of [...required, ...optional]) if (key !== 'type') properties[key] = PANEL_FIELDS[key]!;
  return { title: PANEL_TITLES[type], type: 'object', properties, required, additionalProperties: false };
}

/** One alert, as domain/spec-alerts.ts parses it: `when` is one operator with its threshold, or "changes". */
function alertSchema(): JsonSchema {
  const ordering: readonly string[] = ['>', '<', '>=', '<='];
  const thresholds: Record<string, JsonSchema> = {};
  for (const op of ALERT_OPERATORS) thresholds[op] = ordering.includes(op) ? { type: 'number' } : { type: ['string', 'number', 'boolean', 'null'] };
  return {
    type: 'object',
    properties: {
      id: { ...ID, description: 'Stable id of the alert, unique in the spec.' },
      query: { ...ID, description: 'Key of spec.queries or spec.data whose rows are checked.' },
      column: { ...COLUMN, description: 'Column whose value is compared.' },
      row: { enum: [...ALERT_ROWS], description: 'Which row: first, last (the default) or any (fires when any row meets the condition).' },
      when: {
        anyOf: [{ const: 'changes' }, { type: 'object', properties: thresholds, minProperties: 1, maxProperties: 1, additionalProperties: false }],
        description: 'One operator and its threshold, such as {">": 100}; or "changes": the value differs from the last refresh\'s (row first or last).',
      },
      message: { type: 'string', minLength: 1, maxLength: MAX_ALERT_MESSAGE_CHARS, description: 'What subscribers are told when the alert fires.' },
    },
    required: ['id', 'query', 'column', 'when', 'message'],
    additionalProperties: false,
  };
}

const DATE_TEXT = { type: 'string', format: 'date', description: 'YYYY-MM-DD' };
const PARAM_VALUES: Record<ParamType, JsonSchema> = {
  date: DATE_TEXT,
  date_range: { type: 'object', properties: { from: DATE_TEXT, to: DATE_TEXT }, required: ['from', 'to'], additionalProperties: false },
  number: { type: 'number' },
  text: { type: 'string' },
  select: { type: 'string' },
  multi_select: { type: 'array', items: { type: 'string' } },
};
const PARAM_FIELDS: Record<string, JsonSchema> = {
  id: { type: 'string', pattern: PARAM_ID.source, description: 'Written :id in SQL (a date_range as :id.from and :id.to).' },
  label: { type: 'string', description: 'Label of the control on the page.' },
  required: { type: 'boolean', description: 'When true a default is required: refreshes render the defaults.' },
  min: { type: 'number' },
  max: { type: 'number' },
  pattern: { type: 'string', maxLength: MAX_PATTERN, description: 'Regular expression a text value must match in full.' },
  options: {
    anyOf: [{ type: 'array', items: { type: 'string' }, minItems: 1, maxItems: MAX_OPTIONS }, { type: 'object', properties: { query: ID }, required: ['query'], additionalProperties: false }],
    description: 'The choices, inline or { "query": "<id>" } (its first column).',
  },
};

/** One parameter per type, as domain/spec-params.ts parses it: only the fields its type takes. */
function paramSchema(type: ParamType): JsonSchema {
  const properties: Record<string, JsonSchema> = { type: { const: type }, default: PARAM_VALUES[type] };
  for (const [key, schema] of Object.entries(PARAM_FIELDS)) if (!ONLY[key] || ONLY[key]!.includes(type)) properties[key] = schema;
  const required = ['id', 'type', ...(type === 'select' || type === 'multi_select' ? ['options'] : [])];
  return { type: 'object', properties, required, additionalProperties: false };
}

/** Schema keywords for the `spec` argument (an object or a string): they apply when it is sent as an object. */
export function specSchemaKeywords(): JsonSchema {
  return {
    properties: {
      title: { type: 'string', minLength: 1, description: 'Title of the page.' },
      description: { type: 'string', description: 'Text under the title.' },
      queries: {
        type: 'object',
        description: 'SQL by id, run on the connection at publish and at each refresh; a spec with queries is refreshable.',
        additionalProperties: { type: 'object', properties: { sql: { type: 'string', minLength: 1 } }, required: ['sql'], additionalProperties: false },
      },
      data: {
        type: 'object',
        description: 'Inline rows by id (an id names a query or data, not both); a spec with only data is static.',
        additionalProperties: { type: 'array', items: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } } },
      },
      timezone: { type: 'string', description: 'IANA time zone tables show timestamps in, such as "Europe/Paris" (default UTC).' },
      panels: { type: 'array', minItems: 1, maxItems: MAX_PANELS, items: { oneOf: PANEL_TYPES.map(panelSchema) } },
      params: {
        type: 'array',
        maxItems: MAX_PARAMS,
        description: 'Viewer inputs bound into the SQL as typed parameters (never spliced); the page shows a form, refreshes use the defaults.',
        items: { oneOf: PARAM_TYPES.map(paramSchema) },
      },
      alerts: {
        type: 'array',
        maxItems: MAX_ALERTS,
        description: 'Checked after each refresh; the dashboard\'s subscribers are told when one fires and once when it clears.',
        items: alertSchema(),
      },
    },
    required: ['title', 'panels'],
    additionalProperties: false,
  };
}
