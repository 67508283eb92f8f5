import { MAX_PAGE_SIZE } from '../../../../application/dashboards/list-dashboards.js';
import type { Utf8Body } from '../../../../domain/utf8-body.js';
import { PATCH_OPS } from '../../../../domain/spec-patch.js';
import { specSchemaKeywords } from './spec-schema.js';
import { Flag, IntegerIn, ListOrText, ObjectOrText, OneOf, Text, TextList, Uuid, Workspace } from './arguments.js';
import { SLUG, VERSION_ID, WORKSPACE } from './schemas.js';

/*
 * The dashboard tools' inputs. Properties keep the wire's snake_case names and their declaration order is
 * the order tools/list and `unknown argument ...; accepted:` show them in.
 */

const NAME = 'Display name. Omit or null to keep the current one; cannot be cleared.';
const TAGS = 'Tags. [] clears them; omit or null to keep.';
const CHART = 'Chart kind label, e.g. "line". Omit or null to keep.';
const VISIBILITY = 'public, or private (members only).';
const CONNECTION = '"self" (default) or the id of a warehouse connection, for refreshable dashboards.';
const PATCH =
  'Changes to the current spec of a spec dashboard, used instead of spec or body: an ordered list of operations keyed by id, ' +
  'applied as one unit, validated like a full spec, and published as a new version. add_panel {panel, after? or before?: panel id}, ' +
  'replace_panel {id, panel}, remove_panel {id}, move_panel {id, after or before}, set_query {id, sql}, remove_query {id}, ' +
  'set_data {id, rows (null removes)}, set_title {title}, set_description {description}, set_param {param}, remove_param {id}, ' +
  'set_alert {alert}, remove_alert {id}, set_timezone {timezone: an IANA zone such as "Europe/Paris"; null goes back to UTC}. To change a large dashboard, read get_dashboard with summary: true, then send only the ' +
  'changes here. With dry_run the answer carries the resulting spec\'s summary and nothing is written.';
/** Each operation's shape, for clients that write from the schema; the domain checks it and words the refusals. */
const PATCH_ITEMS = {
  type: 'object',
  properties: {
    op: { type: 'string', enum: [...PATCH_OPS] },
    id: { type: 'string' },
    panel: { type: 'object' },
    after: { type: 'string' },
    before: { type: 'string' },
    sql: { type: 'string' },
    rows: { type: ['array', 'null'], items: { type: 'object' } },
    title: { type: 'string' },
    description: { type: ['string', 'null'] },
    param: { type: 'object' },
    alert: { type: 'object' },
    timezone: { type: ['string', 'null'] },
  },
  required: ['op'],
};
const SUMMARY =
  'For a spec dashboard, add its outline without data rows: panel ids, types, titles and queries; each query\'s first SQL line ' +
  'and its columns from the last run; params, alerts and the spec\'s size. Read it, then change a large dashboard with ' +
  'publish_dashboard\'s patch instead of resending the spec.';
/** The spec words these refusals itself (domain/metadata.ts), whatever the wrong value's type. */
const NAME_REFUSAL = 'name must be a non-empty string';
const CHART_REFUSAL = 'chart must be a non-empty string';

/** A tool that names one dashboard. */
export class DashboardInput {
  @Text(SLUG)
  slug!: string;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class PublishInput {
  @Text({ description: '"<slug>" or "<slug>/<filename>".' })
  path!: string;

  @Text({ optional: true, description: 'File content (body mode), at most 5242880 bytes.' })
  body?: string | Utf8Body | null;

  @OneOf(['utf8', 'base64'], { optional: true, description: 'Encoding of body. Default utf8.' })
  encoding?: 'utf8' | 'base64' | null;

  @ObjectOrText({ optional: true, description: 'Dashboard spec (spec mode), as an object or JSON string.', documented: specSchemaKeywords() })
  spec?: object | string | null;

  @ListOrText({ optional: true, description: PATCH, documented: { items: PATCH_ITEMS } })
  patch?: unknown[] | string | null;

  @Text({ optional: true, nullable: true, description: NAME, refusal: NAME_REFUSAL })
  name?: string | null;

  @TextList({ optional: true, nullable: true, description: TAGS })
  tags?: string[] | null;

  @Text({ optional: true, nullable: true, description: CHART, refusal: CHART_REFUSAL })
  chart?: string | null;

  @OneOf(['public', 'private'], { optional: true, nullable: true, description: VISIBILITY })
  visibility?: 'public' | 'private' | null;

  @Text({ optional: true, nullable: true, description: CONNECTION })
  connection?: string | null;

  @Flag({ optional: true, description: 'Validate only; nothing is written.' })
  dry_run?: boolean | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class UpdateInput {
  @Text(SLUG)
  slug!: string;

  @Text({ optional: true, nullable: true, description: NAME, refusal: NAME_REFUSAL })
  name?: string | null;

  @TextList({ optional: true, nullable: true, description: TAGS })
  tags?: string[] | null;

  @Text({ optional: true, nullable: true, description: CHART, refusal: CHART_REFUSAL })
  chart?: string | null;

  @OneOf(['public', 'private'], { optional: true, nullable: true, description: VISIBILITY })
  visibility?: 'public' | 'private' | null;

  @Text({ optional: true, nullable: true, description: CONNECTION })
  connection?: string | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class RenameInput {
  @Text(SLUG)
  slug!: string;

  @Text(SLUG)
  new_slug!: string;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class ListInput {
  @Text({ optional: true, description: 'next_cursor of a previous answer.' })
  cursor?: string | null;

  @IntegerIn(1, MAX_PAGE_SIZE, { optional: true, description: 'Page size, 1 to 100 (default 50).' })
  limit?: number | null;

  @Text({ optional: true })
  tag?: string | null;

  @Text({ ...SLUG, optional: true })
  slug?: string | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class GetInput {
  @Text(SLUG)
  slug!: string;

  @Flag({ optional: true })
  include_body?: boolean | null;

  @Text({ optional: true })
  filename?: string | null;

  @Flag({ optional: true, description: SUMMARY })
  summary?: boolean | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

/** A tool that names one version of one dashboard. */
export class VersionInput {
  @Text(SLUG)
  slug!: string;

  @Uuid(VERSION_ID)
  version_id!: string;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class GetVersionInput {
  @Text(SLUG)
  slug!: string;

  @Uuid(VERSION_ID)
  version_id!: string;

  @Flag({ optional: true })
  include_body?: boolean | null;

  @Text({ optional: true })
  filename?: string | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class NameVersionInput {
  @Text(SLUG)
  slug!: string;

  @Uuid(VERSION_ID)
  version_id!: string;

  @Text({ nullable: true, description: 'The name, or null to unname.' })
  name!: string | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}
