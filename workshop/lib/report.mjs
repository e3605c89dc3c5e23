// What a lab prints: tables of the emulator's numbers, the lesson, the exercise, and the checks
// that hold every printed number to its expected direction and rough size (a failed check means
// the engine no longer teaches the lesson: the lab exits non-zero and its test fails).
export class Report {
  constructor(write = (line) => console.log(line)) {
    this.write = write;
    this.failures = [];
    this.passed = 0;
  }

  heading(text) {
    this.write(`\n${text}\n${"=".repeat(text.length)}`);
  }

  note(text) {
    this.write(text);
  }

  // columns: header strings; rows: arrays of cells (numbers are printed as they come).
  table(columns, rows) {
    const cells = [columns, ...rows.map((row) => row.map((cell) => format(cell)))];
    const widths = columns.map((_, i) => Math.max(...cells.map((row) => String(row[i]).length)));
    const line = (row) => `| ${row.map((cell, i) => pad(String(cell), widths[i], typeof cell === "number" || /^[\d.,×%+−-]+( RU)?$/.test(cell))).join(" | ")} |`;
    this.write("");
    this.write(line(columns));
    this.write(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
    for (const row of cells.slice(1)) this.write(line(row));
    this.write("");
  }

  lesson(text) {
    this.write(`Lesson: ${text}`);
  }

  exercise(text) {
    this.write(`Exercise: ${text}`);
  }

  // A check of one printed number or relation; `detail` says what was measured.
  check(description, ok, detail = "") {
    if (ok) this.passed++;
    else this.failures.push(`${description}${detail ? ` (${detail})` : ""}`);
  }

  // `value` within [min, max] (either bound may be omitted).
  within(description, value, { min = -Infinity, max = Infinity }) {
    this.check(description, value >= min && value <= max, `measured ${format(value)}, expected ${rangeText(min, max)}`);
  }

  summary() {
    for (const failure of this.failures) this.write(`CHECK FAILED: ${failure}`);
    this.write(`${this.passed} of ${this.passed + this.failures.length} checks of the printed numbers hold.`);
    return this.failures.length === 0;
  }
}

// Request units to two decimals, as the portal shows them; ratios as ×n.n.
export function ru(value) {
  return Math.round(value * 100) / 100;
}

export function times(ratio) {
  return `×${ratio.toFixed(1)}`;
}

export function percent(change) {
  return `${change >= 0 ? "+" : "−"}${Math.abs(Math.round(change * 100))}%`;
}

function format(cell) {
  if (typeof cell !== "number") return cell;
  if (Number.isInteger(cell)) return cell.toLocaleString("en-US");
  return String(Math.round(cell * 100) / 100);
}

function pad(text, width, right) {
  return right ? text.padStart(width) : text.padEnd(width);
}

function rangeText(min, max) {
  if (min === -Infinity) return `at most ${max}`;
  if (max === Infinity) return `at least ${min}`;
  return `${min} to ${max}`;
}
