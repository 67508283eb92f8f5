import { MAX_PANELS, MAX_TEXT_CHARS, PANEL_TYPES, panelFields, type PanelType } from '../../../../domain/dashboard-spec.js';
import { ID_PATTERN } from '../../../../domain/spec-reading.js';
import { MAX_LABEL_CHARS, MAX_LISTED_COLUMNS } from '../../../../domain/spec-display.js';
import type { JsonSchema } from './arguments.js';

/**
 * The dashboard spec as JSON Schema, for publish_dashboard's inputSchema: which fields each panel type takes
 * comes from the domain's own rule (panelFields), so the schema an AI client reads and the parser that judges
 * the spec cannot drift apart. Only the object form is described; the JSON-string form is the same spec.
 */

const ID = { type: 'string', pattern: ID_PATTERN.source };
const COLUMN = { type: 'string', minLength: 1 };

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
      properties: { id: { ...COLUMN, description: 'Column of the query.' }, label: { type: 'string', maxLength: MAX_LABEL_CHARS, description: 'Header shown (default: the column name).' } },
      required: ['id'],
      additionalProperties: false,
    },
    description: 'The columns shown, in order, with their header labels (default: every column, headed by its name).',
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
    },
    required: ['title', 'panels'],
    additionalProperties: false,
  };
}
