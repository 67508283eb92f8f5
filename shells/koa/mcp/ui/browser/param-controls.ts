/**
 * The in-chat view's parameter controls (decision 0283), a browser script compiled on its own (tsconfig.json
 * here) and inlined before the view. The spec page the view previews carries the dashboard's parameter form,
 * drawn for the values shown (query-listed options included); the view takes that form out of the inertly
 * parsed page and builds its own controls from what it declares, by DOM properties only, never by markup.
 * Chosen values become the page's query string through URLSearchParams, and nowhere else.
 * It defines one global, the namespace DASHPUB_PARAMS.
 */
namespace DASHPUB_PARAMS {
  /** A parameter id, or a date range's end (`period.from`), as the page's form names its controls. */
  var NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}(?:\.(?:from|to))?$/;
  var INPUT_TYPES = ['date', 'number', 'text'];

  /** One control as the page's form declares it. */
  export interface Field {
    name: string;
    kind: string;
    /** The control's own accessible name where the group's caption is not enough (a range's ends). */
    ariaLabel: string | null;
    value: string;
    required: boolean;
    min: string | null;
    max: string | null;
    maxLength: number;
    multiple: boolean;
    options: Array<{ value: string; text: string; selected: boolean }>;
  }
  /** One labelled parameter: its caption and its control (two for a date range). */
  export interface Group {
    caption: string;
    fields: Field[];
  }

  /** Takes the page's parameter form out of a parsed page; its groups, or null when it has none. */
  export function takeForm(doc: Document): Group[] | null {
    var form = doc.querySelector('form.params');
    if (!form) return null;
    form.remove();
    var groups: Group[] = [];
    Array.prototype.forEach.call(form.children, function (label: Element) {
      if (label.localName !== 'label') return;
      var caption = label.querySelector('span');
      var fields: Field[] = [];
      Array.prototype.forEach.call(label.querySelectorAll('input, select'), function (control: Element) {
        var field = fieldOf(control);
        if (field) fields.push(field);
      });
      if (fields.length > 0) groups.push({ caption: caption ? caption.textContent || '' : fields[0]!.name, fields: fields });
    });
    return groups.length > 0 ? groups : null;
  }

  function fieldOf(control: Element): Field | null {
    var name = control.getAttribute('name') || '';
    if (!NAME.test(name)) return null;
    var select = control.localName === 'select';
    var kind = select ? 'select' : String(control.getAttribute('type')).toLowerCase();
    if (!select && INPUT_TYPES.indexOf(kind) < 0) return null;
    var options = select ? Array.prototype.map.call((control as HTMLSelectElement).options, function (o: HTMLOptionElement) {
      return { value: o.value, text: o.textContent || '', selected: o.hasAttribute('selected') };
    }) as Field['options'] : [];
    var maxLength = Number(control.getAttribute('maxlength'));
    return {
      name: name,
      kind: kind,
      ariaLabel: control.getAttribute('aria-label'),
      value: select ? '' : control.getAttribute('value') || '',
      required: control.hasAttribute('required'),
      min: control.getAttribute('min'),
      max: control.getAttribute('max'),
      maxLength: maxLength > 0 ? maxLength : 0,
      multiple: select && control.hasAttribute('multiple'),
      options: options,
    };
  }

  /** The view's own controls for the groups, each a label holding its control(s), as the page lays them out. */
  export function build(groups: Group[]): HTMLElement[] {
    return groups.map(function (group) {
      var label = document.createElement('label');
      label.className = 'param';
      var caption = document.createElement('span');
      caption.className = 'param-name';
      caption.textContent = group.caption;
      label.appendChild(caption);
      var holder: HTMLElement = label;
      if (group.fields.length > 1) {
        holder = document.createElement('span');
        holder.className = 'range';
        label.appendChild(holder);
      }
      group.fields.forEach(function (field) { holder.appendChild(control(field)); });
      return label;
    });
  }

  function control(field: Field): HTMLElement {
    var node: HTMLInputElement | HTMLSelectElement;
    if (field.kind === 'select') {
      var select = document.createElement('select');
      select.multiple = field.multiple;
      field.options.forEach(function (o) {
        var option = document.createElement('option');
        option.value = o.value;
        option.textContent = o.text;
        option.selected = o.selected;
        select.appendChild(option);
      });
      node = select;
    } else {
      var input = document.createElement('input');
      input.type = field.kind;
      if (field.kind === 'number') input.step = 'any';
      if (field.min !== null) input.min = field.min;
      if (field.max !== null) input.max = field.max;
      if (field.maxLength > 0) input.maxLength = field.maxLength;
      input.value = field.value;
      node = input;
    }
    node.required = field.required;
    node.setAttribute('data-param', field.name);
    if (field.ariaLabel) node.setAttribute('aria-label', field.ariaLabel);
    return node;
  }

  /** The values chosen in the controls under `root`, as name and value pairs in the page's order. */
  export function pairsOf(root: Element): Array<[string, string]> {
    var pairs: Array<[string, string]> = [];
    Array.prototype.forEach.call(root.querySelectorAll('[data-param]'), function (node: HTMLInputElement | HTMLSelectElement) {
      var name = node.getAttribute('data-param')!;
      if (node instanceof HTMLSelectElement && node.multiple) {
        Array.prototype.forEach.call(node.selectedOptions, function (o: HTMLOptionElement) { pairs.push([name, o.value]); });
      } else {
        pairs.push([name, node.value]);
      }
    });
    return pairs;
  }

  /**
   * The query string the page's URL takes for these values: a date range whose ends are both set as one
   * `id=from..to`, as a shared URL writes it; anything else as the form would send it.
   */
  export function queryOf(pairs: Array<[string, string]>): string {
    var ends: Record<string, { from?: string; to?: string }> = Object.create(null);
    pairs.forEach(function (pair) {
      var m = /^(.+)\.(from|to)$/.exec(pair[0]);
      if (m) (ends[m[1]!] = ends[m[1]!] || {})[m[2] as 'from' | 'to'] = pair[1];
    });
    var query = new URLSearchParams();
    pairs.forEach(function (pair) {
      var m = /^(.+)\.(from|to)$/.exec(pair[0]);
      var range = m ? ends[m[1]!]! : null;
      if (!range || !range.from || !range.to) return query.append(pair[0], pair[1]);
      if (m![2] === 'from') query.append(m![1]!, range.from + '..' + range.to);
    });
    return query.toString();
  }
}
