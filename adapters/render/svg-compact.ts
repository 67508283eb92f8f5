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

/** A number of tenths as SVG writes it shortest: no leading zero, no trailing ".0". */
function tenths(value: number): string {
  const text = String(Math.abs(value) / 10).replace(/^0\./, '.');
  return value < 0 ? `-${text}` : text;
}

/** Appends numbers, with a space only where the next could otherwise run into the one before. */
function append(out: string, numbers: readonly string[]): string {
  for (const n of numbers) {
    const runs = /\d$|\.$/.test(out) && !n.startsWith('-') && !(n.startsWith('.') && /\.\d*$/.test(out));
    out += (runs ? ' ' : '') + n;
  }
  return out;
}

const ARITY: Readonly<Record<string, number>> = { M: 2, L: 2, A: 7, Z: 0 };
const COMMAND = /([MLAZ])([^MLAZ]*)/g;
const TENTH = /^-?\d+(?:\.\d)?$/;

/**
 * A path of lines and arcs (ECharts writes them absolute, to 0.1 px) with each step relative to the point
 * before; counting in whole tenths keeps every point exactly where it was. Any other path is left as it is.
 */
export function relativePath(d: string): string {
  const steps = [...d.matchAll(COMMAND)].map(([whole, command, rest]) => ({ whole: whole!, command: command!, args: rest!.split(' ').filter(Boolean) }));
  if (steps.map((s) => s.whole).join('') !== d) return d;
  if (!steps.every(({ command, args }) => args.length === ARITY[command] && args.every((a) => TENTH.test(a)))) return d;
  let out = '';
  let [x, y] = [0, 0];
  let last = '';
  for (const { command, args } of steps) {
    if (command === 'Z') {
      [out, last] = [out + 'Z', 'Z'];
      continue;
    }
    const [nx, ny] = args.slice(-2).map((a) => Math.round(Number(a) * 10)) as [number, number];
    const end = command === 'M' ? [tenths(nx), tenths(ny)] : [tenths(nx - x), tenths(ny - y)];
    const letter = command === 'M' ? 'M' : command.toLowerCase();
    // A repeated line command may be left out (the SVG path grammar repeats the last one).
    const shape = args.slice(0, -2).map((a) => tenths(Math.round(Number(a) * 10)));
    out = append(letter === 'l' && last === 'l' ? out : out + letter, [...shape, ...end]);
    [x, y, last] = [nx, ny, letter];
  }
  return out;
}

/** The drawing's bytes cut where the picture stays the same: scatter clouds as dots, paths relative. */
export function compactSvg(svg: string): string {
  return compactDots(svg).replace(/ d="([^"]*)"/g, (_, d: string) => ` d="${relativePath(d)}"`);
}
