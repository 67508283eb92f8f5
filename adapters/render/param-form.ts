import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import { escapeHtml } from '../../domain/html.js';
import { PARAM_FORM_START, queryOptions, valueText } from '../../domain/param-values.js';
import { defaultValues, type DateRange, type ParamValue, type ParamValues, type SpecParam } from '../../domain/spec-params.js';

/**
 * The page's parameter form: a plain GET form back to the page, one labelled control per parameter, so
 * choosing values gives a URL that can be shared, with no script at all.
 */
export function paramForm(spec: DashboardSpec, datasets: Map<string, Row[]>, values: ParamValues | undefined): string {
  const params = spec.params ?? [];
  if (params.length === 0) return '';
  const current = values ?? defaultValues(params);
  const controls = params.map((param) => control(param, current[param.id] ?? null, datasets));
  return `${PARAM_FORM_START} method="get" aria-label="Parameters">${controls.join('')}<button type="submit">Apply</button></form>`;
}

function control(param: SpecParam, value: ParamValue | null, datasets: Map<string, Row[]>): string {
  const id = escapeHtml(param.id);
  const label = `<span>${escapeHtml(param.label ?? param.id)}</span>`;
  const required = param.required ? ' required' : '';
  switch (param.type) {
    case 'date':
      return `<label>${label}<input type="date" name="${id}" value="${escapeHtml(valueText(value) as string)}"${required}></label>`;
    case 'date_range': {
      const range = value as DateRange | null;
      const input = (part: 'from' | 'to') =>
        `<input type="date" name="${id}.${part}" aria-label="${escapeHtml(`${param.label ?? param.id} ${part}`)}" value="${escapeHtml(range?.[part] ?? '')}"${required}>`;
      return `<label>${label}<span class="range">${input('from')}${input('to')}</span></label>`;
    }
    case 'number': {
      const bounds = `${param.min === undefined ? '' : ` min="${param.min}"`}${param.max === undefined ? '' : ` max="${param.max}"`}`;
      return `<label>${label}<input type="number" step="any" name="${id}" value="${escapeHtml(valueText(value) as string)}"${bounds}${required}></label>`;
    }
    case 'text':
      return `<label>${label}<input type="text" name="${id}" maxlength="200" value="${escapeHtml(valueText(value) as string)}"${required}></label>`;
    case 'select':
    case 'multi_select': {
      const options = Array.isArray(param.options) ? param.options : queryOptions(param, Object.fromEntries(datasets)) ?? [];
      const chosen = new Set([valueText(value)].flat());
      const blank = param.type === 'select' && !param.required ? `<option value=""${value === null ? ' selected' : ''}>(any)</option>` : '';
      const items = options.map((o) => `<option${chosen.has(o) ? ' selected' : ''}>${escapeHtml(o)}</option>`).join('');
      const multiple = param.type === 'multi_select' ? ' multiple' : '';
      return `<label>${label}<select name="${id}"${multiple}${required}>${blank}${items}</select></label>`;
    }
  }
}
