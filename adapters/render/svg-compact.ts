/** Byte savings on ECharts' SVG output that draw the same picture, in browsers and in resvg. */

const NUM = '-?\\d+(?:\\.\\d+)?';
/** One circle as ECharts writes it: from its rightmost point, a large arc round and a small one back. */
const circle = (x: string, y: string, r: string) => `M${x} ${y}A${r} ${NUM} 0 1 1 ${NUM} ${NUM}A${NUM} ${NUM} 0 0 1 ${NUM} ${NUM}`;
const CIRCLE = new RegExp(circle(`(${NUM})`, `(${NUM})`, `(${NUM})`), 'g');
const DOTS_PATH = new RegExp(`<path d="((?:${circle(NUM, NUM, NUM)}){2,})" fill="(#[0-9a-f]{3,6})"(?: fill-opacity="([\\d.]+)")?`, 'g');

/**
 * A cloud of scatter points drawn as one path (ECharts' large mode) becomes round-capped zero-length strokes:
 * the same dots at about a fifth of the bytes.
 */
export function compactDots(svg: string): string {
  return svg.replace(DOTS_PATH, (_, d: string, fill: string, opacity: string | undefined) => {
    let radius = 0;
    const dots = d.replace(CIRCLE, (_m, x: string, y: string, r: string) => {
      radius = Number(r);
      return `M${Math.round((Number(x) - radius) * 10) / 10} ${y}h0`;
    });
    const alpha = opacity === undefined ? '' : ` stroke-opacity="${opacity}"`;
    return `<path d="${dots}" fill="none" stroke="${fill}" stroke-width="${2 * radius}" stroke-linecap="round"${alpha}`;
  });
}

const T = '-?\\d+(?:\\.\\d)?';
const WHOLE_PATH = new RegExp(`^(?:[ML]${T} ${T}|A${T} ${T} ${T} [01] [01] ${T} ${T}|Z)+$`);
const [MINUS, DOT, SPACE, ZERO, NINE] = [45, 46, 32, 48, 57];

/** Writes numbers of tenths shortest, with a space only where the next would otherwise run into the one before. */
class PathWriter {
  text = '';
  /** Whether the text ends in a number, and whether that number has a decimal point. */
  private number = false;
  private dot = false;

  command(letter: string): void {
    this.text += letter;
    this.number = false;
  }

  add(value: number): void {
    const size = value < 0 ? -value : value;
    const [whole, tenth] = [Math.floor(size / 10), size % 10];
    const digits = tenth === 0 ? String(whole) : whole === 0 ? `.${tenth}` : `${whole}.${tenth}`;
    const joins = !this.number || value < 0 || (this.dot && whole === 0 && tenth !== 0);
    this.text += (joins ? '' : ' ') + (value < 0 ? '-' : '') + digits;
    [this.number, this.dot] = [true, tenth !== 0];
  }
}

/**
 * A path of lines and arcs (ECharts writes them absolute, to 0.1 px) with each step relative to the point
 * before; counting in whole tenths keeps every point exactly where it was. Any other path is left as it is.
 */
export function relativePath(d: string): string {
  if (!WHOLE_PATH.test(d)) return d;
  let i = 0;
  // The path was checked whole above, so each number is digits with at most one decimal, then a space or a command.
  const read = () => {
    const negative = d.charCodeAt(i) === MINUS;
    if (negative) i++;
    let value = 0;
    for (let c = d.charCodeAt(i); c >= ZERO && c <= NINE; c = d.charCodeAt(++i)) value = value * 10 + c - ZERO;
    value *= 10;
    if (d.charCodeAt(i) === DOT) [value, i] = [value + d.charCodeAt(i + 1) - ZERO, i + 2];
    if (d.charCodeAt(i) === SPACE) i++;
    return negative ? -value : value;
  };
  const out = new PathWriter();
  let [x, y, last] = [0, 0, ''];
  while (i < d.length) {
    const command = d[i++]!;
    if (command === 'Z') {
      out.command('Z');
      last = 'Z';
      continue;
    }
    const letter = command === 'M' ? 'M' : command === 'L' ? 'l' : 'a';
    // A repeated line command may be left out (the SVG path grammar repeats the last one).
    if (!(letter === 'l' && last === 'l')) out.command(letter);
    if (letter === 'a') for (let k = 0; k < 5; k++) out.add(read());
    const [nx, ny] = [read(), read()];
    out.add(letter === 'M' ? nx : nx - x);
    out.add(letter === 'M' ? ny : ny - y);
    [x, y, last] = [nx, ny, letter];
  }
  return out.text;
}

/** The drawing's bytes cut where the picture stays the same: scatter clouds as dots, paths relative. */
export function compactSvg(svg: string): string {
  return compactDots(svg).replace(/ d="([^"]*)"/g, (_, d: string) => ` d="${relativePath(d)}"`);
}
