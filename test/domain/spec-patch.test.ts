import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { parseDashboardSpec, type DashboardSpec } from '../../domain/dashboard-spec.js';
import { applySpecPatch, MAX_PATCH_OPS } from '../../domain/spec-patch.js';

const message = (fn: () => unknown) => refusal(fn).message;

/** A stored spec of three panels over one query and one inline data set. */
const current = () =>
  parseDashboardSpec({
    title: 'Sales',
    description: 'Monthly',
    queries: { orders: { sql: 'select month, total from orders' } },
    data: { regions: [{ region: 'EU', total: 3 }] },
    panels: [
      { id: 'trend', type: 'line', query: 'orders', x: 'month', y: 'total' },
      { id: 'share', type: 'pie', query: 'regions', x: 'region', y: 'total' },
      { id: 'note', type: 'text', text: 'hello' },
    ],
  });
const patched = (patch: unknown) => applySpecPatch(current(), patch).spec;
const ids = (patch: unknown) => patched(patch).panels.map((p) => p.id);
const TABLE = { id: 'rows', type: 'table', query: 'orders' };

describe('domain: spec patch', () => {
  describe('panels', () => {
    it('add_panel appends at the end, or goes after or before a panel', () => {
      expect(ids([{ op: 'add_panel', panel: TABLE }])).to.deep.equal(['trend', 'share', 'note', 'rows']);
      expect(ids([{ op: 'add_panel', panel: TABLE, after: 'trend' }])).to.deep.equal(['trend', 'rows', 'share', 'note']);
      expect(ids([{ op: 'add_panel', panel: TABLE, before: 'trend' }])).to.deep.equal(['rows', 'trend', 'share', 'note']);
      expect(patched([{ op: 'add_panel', panel: TABLE }]).panels[3]).to.deep.equal(TABLE);
    });

    it('replace_panel keeps the place and the id unless the new panel names another', () => {
      const spec = patched([{ op: 'replace_panel', id: 'trend', panel: { type: 'bar', query: 'orders', x: 'month', y: 'total', title: 'Bars' } }]);
      expect(spec.panels[0]).to.deep.equal({ id: 'trend', type: 'bar', title: 'Bars', query: 'orders', x: 'month', y: 'total' });
      expect(ids([{ op: 'replace_panel', id: 'note', panel: { id: 'intro', type: 'text', text: 'hi' } }])).to.deep.equal(['trend', 'share', 'intro']);
    });

    it('remove_panel and move_panel, in order', () => {
      expect(ids([{ op: 'remove_panel', id: 'share' }])).to.deep.equal(['trend', 'note']);
      expect(ids([{ op: 'move_panel', id: 'note', before: 'trend' }])).to.deep.equal(['note', 'trend', 'share']);
      expect(ids([{ op: 'move_panel', id: 'trend', after: 'note' }])).to.deep.equal(['share', 'note', 'trend']);
      expect(ids([{ op: 'add_panel', panel: TABLE }, { op: 'move_panel', id: 'rows', after: 'trend' }, { op: 'remove_panel', id: 'note' }]))
        .to.deep.equal(['trend', 'rows', 'share']);
    });

    it('refuses an id that names no panel, with the operation and its field', () => {
      expect(message(() => patched([{ op: 'remove_panel', id: 'trend' }, { op: 'remove_panel', id: 'x' }]))).to.equal('patch[1].id "x" names no panel');
      expect(message(() => patched([{ op: 'replace_panel', id: 'x', panel: TABLE }]))).to.equal('patch[0].id "x" names no panel');
      expect(message(() => patched([{ op: 'move_panel', id: 'x', after: 'trend' }]))).to.equal('patch[0].id "x" names no panel');
      expect(message(() => patched([{ op: 'add_panel', panel: TABLE, after: 'nope' }]))).to.equal('patch[0].after "nope" names no panel');
      expect(message(() => patched([{ op: 'move_panel', id: 'trend', before: 'nope' }]))).to.equal('patch[0].before "nope" names no panel');
    });

    it('refuses a duplicate id, a missing or doubled place and a panel that is not an object', () => {
      expect(message(() => patched([{ op: 'add_panel', panel: { ...TABLE, id: 'note' } }]))).to.equal('patch[0].panel.id "note" is already used by another panel; use replace_panel to change it');
      expect(message(() => patched([{ op: 'replace_panel', id: 'note', panel: { ...TABLE, id: 'trend' } }]))).to.equal('patch[0].panel.id "trend" is already used by another panel; use replace_panel to change it');
      expect(message(() => patched([{ op: 'move_panel', id: 'note' }]))).to.equal('patch[0] needs "after" or "before": the id of the panel to move it next to');
      expect(message(() => patched([{ op: 'move_panel', id: 'note', after: 'note' }]))).to.equal('patch[0].after names the panel being moved');
      expect(message(() => patched([{ op: 'add_panel', panel: TABLE, after: 'trend', before: 'note' }]))).to.equal('patch[0] takes "after" or "before", not both');
      expect(message(() => patched([{ op: 'add_panel', panel: 'x' }]))).to.equal('patch[0].panel must be an object (got string)');
      expect(message(() => patched([{ op: 'add_panel', panel: { type: 'table', query: 'orders' } }]))).to.equal('patch[0].panel.id is required');
      expect(message(() => patched([{ op: 'add_panel', panel: { ...TABLE, id: 'a b' } }]))).to.equal('patch[0].panel.id "a b" must match [A-Za-z0-9_-] (1 to 64 characters)');
    });

    it('validates the result like a full spec, naming the operation that wrote the panel', () => {
      expect(message(() => patched([{ op: 'remove_panel', id: 'note' }, { op: 'add_panel', panel: { id: 'bad', type: 'line', query: 'orders', x: 'month' } }])))
        .to.equal('patch[1].panel.y is required for a line panel');
      expect(message(() => patched([{ op: 'replace_panel', id: 'share', panel: { type: 'pie', query: 'regions', x: 'nope', y: 'total' } }])))
        .to.equal('patch[0].panel.x "nope" is not a column of spec.data.regions (columns: region, total)');
      expect(message(() => patched([{ op: 'add_panel', panel: { id: 'q', type: 'table', query: 'missing' } }])))
        .to.equal('patch[0].panel.query "missing" does not name a key of spec.queries or spec.data (known: orders, regions)');
      for (const id of ['trend', 'share']) expect(() => patched([{ op: 'remove_panel', id }])).to.not.throw();
      expect(message(() => patched(['trend', 'share', 'note'].map((id) => ({ op: 'remove_panel', id })))))
        .to.equal('patch[2]: spec.panels must be a non-empty array of panels');
    });
  });

  describe('queries and data', () => {
    it('set_query adds or replaces a query; remove_query removes one no panel reads', () => {
      const spec = patched([{ op: 'set_query', id: 'orders', sql: 'select 1 as month, 2 as total' }, { op: 'set_query', id: 'more', sql: 'select 2' }]);
      expect(spec.queries).to.deep.equal({ orders: { sql: 'select 1 as month, 2 as total' }, more: { sql: 'select 2' } });
      expect(applySpecPatch(current(), [{ op: 'set_query', id: 'more', sql: 'select 2' }, { op: 'remove_query', id: 'more' }]).changedQueries).to.deep.equal(['more']);
      const none = patched([{ op: 'remove_panel', id: 'trend' }, { op: 'remove_query', id: 'orders' }]);
      expect(none).to.not.have.property('queries');
    });

    it('refuses removing a query a panel reads, a missing one, or SQL that is not text', () => {
      expect(message(() => patched([{ op: 'remove_query', id: 'orders' }]))).to.equal('patch[0].id "orders" is still used by panel "trend"; remove or change that panel first');
      expect(message(() => patched([{ op: 'remove_query', id: 'nope' }]))).to.equal('patch[0].id "nope" names no query');
      expect(message(() => patched([{ op: 'set_query', id: 'q', sql: ' ' }]))).to.equal('patch[0].sql must be a non-empty string');
      expect(message(() => patched([{ op: 'set_query', id: 'regions', sql: 'select 1' }]))).to.equal('patch[0].id "regions" names inline data (spec.data); remove it first with set_data and "rows": null');
    });

    it('set_data sets or (rows null) removes inline data, refused where a query has the id or a panel reads it', () => {
      expect(patched([{ op: 'set_data', id: 'regions', rows: [{ region: 'US', total: 9 }] }]).data).to.deep.equal({ regions: [{ region: 'US', total: 9 }] });
      expect(patched([{ op: 'remove_panel', id: 'share' }, { op: 'set_data', id: 'regions', rows: null }])).to.not.have.property('data');
      expect(message(() => patched([{ op: 'set_data', id: 'orders', rows: [] }]))).to.equal('patch[0].id "orders" names a query (spec.queries); remove it first with remove_query');
      expect(message(() => patched([{ op: 'set_data', id: 'regions', rows: null }]))).to.equal('patch[0].id "regions" is still used by panel "share"; remove or change that panel first');
      expect(message(() => patched([{ op: 'set_data', id: 'd', rows: {} }]))).to.equal('patch[0].rows must be an array of row objects, or null to remove the data (got object)');
      expect(message(() => patched([{ op: 'set_data', id: 'd', rows: [{ a: [] }] }]))).to.equal('patch[0].rows[0].a must be a string, number, boolean or null (got array)');
    });

    it('names the set_data that broke a panel it left alone', () => {
      expect(message(() => patched([{ op: 'set_title', title: 'x' }, { op: 'set_data', id: 'regions', rows: [{ area: 'EU', total: 1 }] }])))
        .to.equal('patch[1]: spec.panels[1].x "region" is not a column of spec.data.regions (columns: area, total)');
    });
  });

  describe('the rest', () => {
    it('set_title and set_description (null removes it)', () => {
      const spec = patched([{ op: 'set_title', title: 'New' }, { op: 'set_description', description: null }]);
      expect(spec.title).to.equal('New');
      expect(spec).to.not.have.property('description');
      expect(patched([{ op: 'set_description', description: 'Weekly' }]).description).to.equal('Weekly');
      expect(message(() => patched([{ op: 'set_title', title: '' }]))).to.equal('patch[0].title must be a non-empty string');
      expect(message(() => patched([{ op: 'set_description', description: 3 }]))).to.equal('patch[0].description must be a string (got number)');
    });

    it('set_timezone sets the zone tables show instants in; null goes back to the default (UTC)', () => {
      expect(patched([{ op: 'set_timezone', timezone: 'Europe/Paris' }]).timezone).to.equal('Europe/Paris');
      const zoned = parseDashboardSpec({ ...current(), timezone: 'Asia/Tokyo' });
      expect(applySpecPatch(zoned, [{ op: 'set_timezone', timezone: null }]).spec).to.not.have.property('timezone');
      expect(applySpecPatch(zoned, [{ op: 'set_title', title: 'x' }]).spec.timezone).to.equal('Asia/Tokyo');
      // The last one wins, as for every other part of the spec.
      expect(patched([{ op: 'set_timezone', timezone: 'UTC' }, { op: 'set_timezone', timezone: 'America/New_York' }]).timezone).to.equal('America/New_York');
    });

    it('set_timezone refuses what is not an IANA zone, naming the operation', () => {
      const expected = (i: number, got: string) => `patch[${i}].timezone must be an IANA time zone such as "UTC" or "Europe/Paris" (got ${got})`;
      expect(message(() => patched([{ op: 'set_title', title: 'x' }, { op: 'set_timezone', timezone: 'Mars/Olympus' }]))).to.equal(expected(1, '"Mars/Olympus"'));
      expect(message(() => patched([{ op: 'set_timezone', timezone: '' }]))).to.equal(expected(0, '""'));
      expect(message(() => patched([{ op: 'set_timezone', timezone: 2 }]))).to.equal(expected(0, 'number'));
      expect(message(() => patched([{ op: 'set_timezone', zone: 'UTC' }]))).to.match(/^patch\[0\] has unknown key "zone"/);
    });

    it('set_param and set_alert edit their keyed lists by id, which the spec refuses until it knows them', () => {
      const refused = message(() => patched([{ op: 'set_title', title: 'x' }, { op: 'set_param', param: { id: 'region', type: 'text' } }]));
      expect(refused).to.match(/^patch\[1\]/);
      expect(message(() => patched([{ op: 'remove_param', id: 'region' }]))).to.equal('patch[0].id "region" names no param');
      expect(message(() => patched([{ op: 'remove_alert', id: 'late' }]))).to.equal('patch[0].id "late" names no alert');
      expect(message(() => patched([{ op: 'set_alert', alert: { name: 'x' } }]))).to.equal('patch[0].alert.id is required');
      expect(message(() => patched([{ op: 'set_param', param: [] }]))).to.equal('patch[0].param must be an object (got array)');
    });

    it('applies params and alerts by id: set replaces in place or appends, remove takes out', () => {
      const withLists = { ...current(), params: [{ id: 'a', v: 1 }, { id: 'b', v: 2 }], alerts: [{ id: 'x' }] };
      const asIs = (raw: object) => raw as DashboardSpec;
      const made = (patch: unknown) => applySpecPatch(withLists, patch, asIs).spec as unknown as { params: unknown[]; alerts: unknown[] };
      expect(made([{ op: 'set_param', param: { id: 'a', v: 3 } }, { op: 'set_param', param: { id: 'c' } }]).params).to.deep.equal([{ id: 'a', v: 3 }, { id: 'b', v: 2 }, { id: 'c' }]);
      expect(made([{ op: 'remove_param', id: 'a' }, { op: 'set_alert', alert: { id: 'y' } }])).to.deep.include({ params: [{ id: 'b', v: 2 }], alerts: [{ id: 'x' }, { id: 'y' }] });
      expect(made([{ op: 'remove_alert', id: 'x' }]).alerts).to.deep.equal([]);
      expect(message(() => made([{ op: 'remove_param', id: 'b' }, { op: 'remove_param', id: 'b' }]))).to.equal('patch[1].id "b" names no param');
      expect(withLists.params).to.deep.equal([{ id: 'a', v: 1 }, { id: 'b', v: 2 }]);
    });
  });

  describe('the patch itself', () => {
    it('is a non-empty list of known operations with their own keys, also as JSON text', () => {
      expect(ids(JSON.stringify([{ op: 'remove_panel', id: 'note' }]))).to.deep.equal(['trend', 'share']);
      expect(message(() => patched([]))).to.equal('patch must be a non-empty array of operations (got array)');
      expect(message(() => patched({}))).to.equal('patch must be a non-empty array of operations (got object)');
      expect(message(() => patched('[oops'))).to.match(/^patch is not valid JSON: /);
      expect(message(() => patched([{ op: 'drop_table' }]))).to.match(/^patch\[0\]\.op must be one of add_panel, replace_panel, .* \(got "drop_table"\)$/);
      expect(message(() => patched([{ id: 'x' }]))).to.match(/^patch\[0\]\.op must be one of .* \(got nothing\)$/);
      expect(message(() => patched([{ op: 'remove_panel', id: 'note', panel: {} }]))).to.equal('patch[0] has unknown key "panel" (allowed: op, id)');
      expect(message(() => patched([3]))).to.equal('patch[0] must be an object with "op" (got number)');
      expect(message(() => patched(Array.from({ length: MAX_PATCH_OPS + 1 }, () => ({ op: 'set_title', title: 'x' })))))
        .to.equal(`patch has ${MAX_PATCH_OPS + 1} operations, over the limit of ${MAX_PATCH_OPS}`);
    });

    it('is atomic: the current spec is never changed, whatever the outcome', () => {
      const spec = current();
      const before = JSON.stringify(spec);
      applySpecPatch(spec, [{ op: 'remove_panel', id: 'note' }, { op: 'set_query', id: 'orders', sql: 'select 2' }, { op: 'set_data', id: 'regions', rows: [{ region: 'x', total: 1 }] }]);
      refusal(() => applySpecPatch(spec, [{ op: 'remove_panel', id: 'note' }, { op: 'remove_panel', id: 'note' }]));
      expect(JSON.stringify(spec)).to.equal(before);
    });

    it('refuses prototype keys wherever an id or an object arrives, and pollutes nothing', () => {
      const polluting = '[{"op":"add_panel","panel":{"__proto__":{"polluted":true},"id":"x","type":"text","text":"t"}}]';
      expect(message(() => patched(polluting))).to.match(/^patch\[0\]\.panel has unknown key "__proto__" \(allowed: /);
      expect(message(() => patched([{ op: 'set_query', id: '__proto__', sql: 'select 1' }]))).to.equal('patch[0].id "__proto__" is reserved');
      expect(message(() => patched([{ op: 'set_data', id: '__proto__', rows: [] }]))).to.equal('patch[0].id "__proto__" is reserved');
      expect(message(() => patched([{ op: 'remove_panel', id: 'constructor' }]))).to.equal('patch[0].id "constructor" names no panel');
      expect(message(() => patched([{ op: 'remove_query', id: 'toString' }]))).to.equal('patch[0].id "toString" names no query');
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
    });

    it('names the operation behind a later refusal of a query it set (the SQL check, preparing or running it)', () => {
      const result = applySpecPatch(current(), [{ op: 'set_title', title: 'x' }, { op: 'set_query', id: 'more', sql: 'drop table x' }]);
      expect(result.blame('spec.queries.more.sql: only SELECT is allowed')).to.equal('patch[1].sql: only SELECT is allowed');
      expect(result.blame('spec.queries.orders.sql: only SELECT is allowed')).to.equal('patch[1]: spec.queries.orders.sql: only SELECT is allowed');
      expect(result.blame('connection "x" is not active')).to.equal('connection "x" is not active');
      expect(result.blame('query "more": column "nope" does not exist')).to.equal('patch[1].sql: query "more": column "nope" does not exist');
      expect(result.blame('query "orders": relation "orders" does not exist')).to.equal('query "orders": relation "orders" does not exist');
    });
  });
});
