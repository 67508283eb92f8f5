/**
 * The preview's sanitiser, a browser script compiled on its own (tsconfig.json here) and inlined into the view. It keeps only what is known to be inert: allowlisted elements, attributes and CSS
 * properties. CSS goes through the browser's own parser (a constructed CSSStyleSheet and style declarations),
 * which resolves escapes, so `\75 rl(` is seen as the url function it is; every at-rule and every selector that
 * reaches out of the shadow root (`:host`, `::slotted`, `::part`) is dropped. Nothing here fetches: the parsed
 * document has no browsing context, and the cleaned sheet is adopted only after it was cleaned.
 * It defines one global, the namespace DASHPUB_SANITISER, with `cleanPage(doc)` → the page's cleaned CSSStyleSheet.
 */
namespace DASHPUB_SANITISER {
  var SVG_NS = 'http://www.w3.org/2000/svg';
  var HTML_NS = 'http://www.w3.org/1999/xhtml';
  function set(words: string): Record<string, boolean> {
    var s: Record<string, boolean> = Object.create(null);
    words.split(/\s+/).forEach(function (w: string) { if (w) s[w] = true; });
    return s;
  }

  // Removed with everything inside: they run, fetch, animate other attributes, or hold text that is not content.
  var DROP = set('script style template iframe frame frameset noframes noembed noscript object embed applet portal ' +
    'fencedframe xmp plaintext head link meta base video audio source track picture canvas dialog slot ' +
    'image feimage foreignobject set animate animatemotion animatetransform animatecolor discard mpath handler ' +
    'listener cursor font-face font-face-uri color-profile view');
  var HTML_ELEMENTS = set('a abbr address article aside b bdi bdo blockquote br button caption center cite code col ' +
    'colgroup data dd del details dfn div dl dt em fieldset figcaption figure font footer h1 h2 h3 h4 h5 h6 header ' +
    'hgroup hr i img input ins kbd label legend li main mark meter nav ol optgroup option output p pre progress q ' +
    'rp rt ruby s samp section select small span strong sub summary sup table tbody td textarea tfoot th thead time ' +
    'tr tt u ul var wbr');
  var SVG_ELEMENTS = set('svg g defs desc title symbol use switch a path rect circle ellipse line polyline polygon ' +
    'text tspan textpath lineargradient radialgradient stop pattern clippath mask marker filter feblend ' +
    'fecolormatrix fecomponenttransfer fecomposite feconvolvematrix fediffuselighting fedisplacementmap ' +
    'fedistantlight fedropshadow feflood fefunca fefuncb fefuncg fefuncr fegaussianblur femerge femergenode ' +
    'femorphology feoffset fepointlight fespecularlighting fespotlight fetile feturbulence');
  var GLOBAL_ATTRIBUTES = set('id class title lang dir role hidden style');
  var HTML_ATTRIBUTES = set('alt width height align valign colspan rowspan headers scope span start reversed type ' +
    'value datetime open abbr border cellpadding cellspacing bgcolor color face size nowrap label disabled checked ' +
    'selected readonly placeholder min max step low high optimum for rows cols wrap decoding');
  var SVG_ATTRIBUTES = set('viewbox preserveaspectratio version baseprofile x y x1 y1 x2 y2 cx cy r rx ry fx fy fr ' +
    'width height d points pathlength transform fill-opacity fill-rule stroke-width stroke-linecap stroke-linejoin ' +
    'stroke-miterlimit stroke-dasharray stroke-dashoffset stroke-opacity opacity clip-rule text-anchor ' +
    'dominant-baseline alignment-baseline baseline-shift font-family font-size font-weight font-style font-variant ' +
    'letter-spacing word-spacing text-decoration xml:space dx dy rotate textlength lengthadjust startoffset method ' +
    'spacing side offset stop-color stop-opacity gradientunits gradienttransform spreadmethod patternunits ' +
    'patterncontentunits patterntransform clippathunits maskunits maskcontentunits markerunits markerwidth ' +
    'markerheight refx refy orient filterunits primitiveunits in in2 result stddeviation mode operator k1 k2 k3 k4 ' +
    'values type basefrequency numoctaves seed stitchtiles scale xchannelselector ychannelselector radius ' +
    'flood-color flood-opacity lighting-color surfacescale diffuseconstant specularconstant specularexponent ' +
    'kernelunitlength azimuth elevation z pointsatx pointsaty pointsatz limitingconeangle tablevalues slope ' +
    'intercept amplitude exponent order kernelmatrix divisor bias targetx targety edgemode preservealpha ' +
    'color-interpolation color-interpolation-filters shape-rendering vector-effect paint-order visibility display ' +
    'overflow pointer-events');
  // Presentation attributes that take a URL reference: kept only when the CSS parser reads them as local references.
  var URL_ATTRIBUTES = set('fill stroke clip-path mask filter marker-start marker-mid marker-end');
  // Elements whose href may point inside the page (never outside it).
  var LOCAL_HREF = set('a use lineargradient radialgradient pattern filter textpath');

  // CSS properties that never fetch and stay inside their box; "x-*" allows a family. No name with "image" in it.
  var PROPERTIES = set('color background-color background-position-x background-position-y background-size ' +
    'background-repeat background-clip background-origin opacity visibility display box-sizing position top right ' +
    'bottom left z-index float clear width height aspect-ratio inline-size block-size box-shadow text-overflow ' +
    'overflow-x overflow-y overflow-wrap order gap row-gap column-gap column-count column-width column-span ' +
    'column-fill line-height letter-spacing word-spacing word-break white-space white-space-collapse tab-size ' +
    'hyphens vertical-align direction unicode-bidi writing-mode list-style-type list-style-position quotes content ' +
    'table-layout border-collapse -webkit-border-horizontal-spacing -webkit-border-vertical-spacing caption-side ' +
    'empty-cells transform transform-origin transform-box rotate scale translate object-fit object-position fill ' +
    'fill-opacity fill-rule stroke stop-color stop-opacity flood-color flood-opacity lighting-color shape-rendering ' +
    'dominant-baseline alignment-baseline baseline-shift paint-order vector-effect color-interpolation ' +
    'color-interpolation-filters clip-path clip-rule marker-start marker-mid marker-end filter r rx ry cx cy x y d ' +
    'user-select pointer-events accent-color caret-color color-scheme -webkit-font-smoothing -webkit-line-clamp ' +
    '-webkit-box-orient text-size-adjust -webkit-text-size-adjust');
  var PROPERTY_FAMILIES = ['margin-', 'padding-', 'border-', 'outline-', 'inset-', 'min-', 'max-', 'flex-', 'grid-',
    'align-', 'justify-', 'place-', 'font-', 'text-', 'column-rule-', 'counter-', 'stroke-'];
  // Properties whose value may name an element of the page by a local #id reference, and must not hide one behind var().
  var LOCAL_REFS = set('fill stroke clip-path mask filter marker-start marker-mid marker-end');
  // CSS functions that fetch, or that could turn text into something that does.
  var FETCHING = ['url', 'image', 'image-set', 'cross-fade', 'element', 'src', 'paint', 'attr'].map(function (f) { return f + '('; });
  var LOCAL_URL = 'url' + '("#';
  var BACKSLASH = String.fromCharCode(92);

  function allowedProperty(name: string): boolean {
    if (name.indexOf('--') === 0) return true;
    if (name.indexOf('image') >= 0) return false;
    if (PROPERTIES[name]) return true;
    return PROPERTY_FAMILIES.some(function (prefix) { return name.indexOf(prefix) === 0; });
  }

  /** A value as the CSS parser serialised it (escapes resolved): inert when it names nothing to fetch. */
  function inertValue(name: string, value: string): boolean {
    var v = String(value).toLowerCase();
    if (!v.trim()) return false;
    for (var i = 0; i < FETCHING.length; i++) {
      var at = v.indexOf(FETCHING[i]);
      while (at >= 0) {
        var local = i === 0 && LOCAL_REFS[name] && v.indexOf(LOCAL_URL, at) === at;
        if (!local) return false;
        at = v.indexOf(FETCHING[i], at + 1);
      }
    }
    // var() is resolved later, out of sight: not where a url could fetch.
    if (v.indexOf('var(') >= 0 && (LOCAL_REFS[name] || name === 'content')) return false;
    return true;
  }

  /**
   * Custom properties keep their text as written, escapes unresolved: one is kept only without a backslash
   * (so what it says is what it means) and without a fetching function, so no var() can bring one in.
   */
  function inertDeclaration(name: string, value: string): boolean {
    if (!allowedProperty(name)) return false;
    if (name.indexOf('--') === 0) return String(value).indexOf(BACKSLASH) < 0 && inertValue(name, value);
    return inertValue(name, value);
  }
  function cleanDeclarations(style: CSSStyleDeclaration) {
    var names: string[] = [];
    for (var i = 0; i < style.length; i++) names.push(style.item(i));
    names.forEach(function (name) { if (!inertDeclaration(name, style.getPropertyValue(name))) style.removeProperty(name); });
  }

  /** The page's html, :root and body rules apply to the two wrappers that stand for them. */
  function mapSelector(selector: string): string {
    return selector
      .replace(/:root\b/gi, '.dp-root')
      .replace(/(^|[\s>+~,(])html(?=$|[\s>+~,.:#\[)])/gi, '$1.dp-root')
      .replace(/(^|[\s>+~,(])body(?=$|[\s>+~,.:#\[)])/gi, '$1.dp-body');
  }
  function outsideShadow(selector: string): boolean {
    var s = selector.toLowerCase();
    return s.indexOf(':host') >= 0 || s.indexOf('::slotted') >= 0 || s.indexOf('::part') >= 0;
  }

  /** The page's style text, parsed by the browser; only plain style rules survive, with inert declarations. */
  export function cleanSheet(text: string): CSSStyleSheet {
    var sheet = new CSSStyleSheet();
    try { sheet.replaceSync(text); } catch (e) { return new CSSStyleSheet(); }
    for (var i = sheet.cssRules.length - 1; i >= 0; i--) {
      var rule = sheet.cssRules[i];
      if (!(rule instanceof CSSStyleRule) || outsideShadow(rule.selectorText)) { sheet.deleteRule(i); continue; }
      rule.selectorText = mapSelector(rule.selectorText);
      if (outsideShadow(rule.selectorText)) { sheet.deleteRule(i); continue; }
      // Nested rules (CSS nesting) go: their selectors and at-rules would need the same checks.
      if (rule.cssRules) for (var j = rule.cssRules.length - 1; j >= 0; j--) rule.deleteRule(j);
      cleanDeclarations(rule.style);
    }
    return sheet;
  }

  var scratch = document.implementation.createHTMLDocument('').createElement('div');
  function inertAttributeValue(name: string, value: string): boolean {
    scratch.removeAttribute('style');
    scratch.style.setProperty(name, value);
    return inertValue(name, scratch.style.getPropertyValue(name));
  }

  function keepAttribute(node: Element & { style?: CSSStyleDeclaration }, tag: string, svg: boolean, name: string, value: string): boolean {
    if (name === 'style') return !!node.style;
    if (name.indexOf('aria-') === 0 || name.indexOf('data-') === 0) return true;
    if (name === 'href' || name === 'xlink:href') return !!LOCAL_HREF[tag] && value.trim().charAt(0) === '#';
    if (name === 'src') return tag === 'img' && !svg && value.trim().toLowerCase().indexOf('data:image/') === 0;
    if (svg && URL_ATTRIBUTES[name]) return inertAttributeValue(name, value);
    return !!(GLOBAL_ATTRIBUTES[name] || (svg ? SVG_ATTRIBUTES : HTML_ATTRIBUTES)[name]);
  }
  function cleanAttributes(node: Element & { style: CSSStyleDeclaration }, tag: string, svg: boolean) {
    Array.prototype.slice.call(node.attributes).forEach(function (attr) {
      if (!keepAttribute(node, tag, svg, attr.name.toLowerCase(), attr.value)) node.removeAttributeNode(attr);
    });
    if (!node.hasAttribute('style')) return;
    // Written back as the parser serialised it, so the live document reads exactly what was checked.
    cleanDeclarations(node.style);
    var text = node.style.cssText;
    if (text) node.setAttribute('style', text);
    else node.removeAttribute('style');
  }

  /** Children first, so an unknown element is replaced by its already cleaned content. */
  function cleanTree(parent: Element) {
    Array.prototype.slice.call(parent.children).forEach(function (node) {
      var tag = node.localName.toLowerCase();
      if (DROP[tag]) return node.remove();
      cleanTree(node);
      var svg = node.namespaceURI === SVG_NS;
      var known = svg ? SVG_ELEMENTS[tag] : node.namespaceURI === HTML_NS && HTML_ELEMENTS[tag];
      if (known) return cleanAttributes(node, tag, svg);
      while (node.firstChild) parent.insertBefore(node.firstChild, node);
      node.remove();
    });
  }

  /** Cleans a DOMParser document in place (the body's tree, the html and body attributes); answers its sheet. */
  export function cleanPage(doc: Document): CSSStyleSheet {
    var css: string[] = [];
    Array.prototype.forEach.call(doc.querySelectorAll('style'), function (s) { css.push(s.textContent || ''); });
    if (doc.body) cleanTree(doc.body);
    [doc.documentElement, doc.body].forEach(function (node) { if (node) cleanAttributes(node, 'div', false); });
    return cleanSheet(css.join('\n'));
  }
}
