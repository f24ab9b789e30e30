// What pages.mjs, mermaid.mjs and firefox.mjs share: finding and starting
// Chromium, the command line, the report of checks, and the reading of a
// page's data.
import { chromium } from "playwright-core";
import { onPath, versionOf } from "./which.mjs";

// findChromium takes the browser the machine has (Debian's chromium):
// nothing here may download one.
export function findChromium(flag) {
  const found = flag || process.env.CHOBO_CHROMIUM || onPath(["chromium", "chromium-browser"]);
  if (!found) {
    throw new Error("no Chromium: set CHOBO_CHROMIUM or put chromium on PATH (tests/setup.sh installs Debian's)");
  }
  return found;
}

export async function launch(executablePath) {
  // As root Chromium refuses to start with its sandbox on.
  const args = process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath, args, headless: true, timeout: 180000 });
}

export function chromiumVersion(executablePath) {
  return versionOf(executablePath);
}

// parseArgs reads `--name value` options and the files after them.
export function parseArgs(argv, names) {
  const opts = {};
  const files = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const name = a.startsWith("--") ? a.slice(2) : null;
    if (name !== null && names.includes(name)) {
      if (i + 1 >= argv.length) {
        throw new Error(`${a} needs a value`);
      }
      opts[name] = argv[++i];
    } else if (name !== null && name !== "") {
      throw new Error(`unknown option ${a} (known: ${names.map((n) => "--" + n).join(", ")})`);
    } else {
      files.push(a);
    }
  }
  return { opts, files };
}

// Report prints one line per check, so that a failure reads on its own
// in a long log, and a summary at the end.
export class Report {
  constructor() {
    this.passed = 0;
    this.failures = [];
  }

  ok(where, what) {
    this.passed++;
    console.log(`ok   ${where}: ${what}`);
  }

  fail(where, what, detail) {
    this.failures.push(`${where}: ${what}: ${detail}`);
    console.log(`FAIL ${where}: ${what}: ${detail}`);
  }

  // check passes when problems is empty; otherwise it fails with all of them.
  check(where, what, problems) {
    if (problems.length === 0) {
      this.ok(where, what);
    } else {
      this.fail(where, what, problems.join("; "));
    }
  }

  finish(label) {
    console.log(`${label}: ${this.passed} checks passed, ${this.failures.length} failed`);
    if (this.failures.length > 0) {
      console.log("failures:");
      for (const f of this.failures) {
        console.log("  " + f);
      }
      process.exitCode = 1;
    }
  }
}

// decodeData reads the data block of a page (html.go writes each row,
// hold, step and state once, and names it by its place) into one object
// per scenario, step and state, as the checks compare them with what the
// page shows. It is written apart from the stepper's own reading, so that
// the checks do not share its mistakes.
export function decodeData(raw) {
  const state = (i) => {
    const [answers, refused, rows, changed, holds] = raw.states[i];
    return {
      answers,
      refused,
      ledger: rows.map((r, k) => {
        const [account, posted, heldOut, heldIn] = raw.rows[r];
        return { account, posted, held_out: heldOut, held_in: heldIn, changed: changed.includes(k) };
      }),
      holds: holds.map((h) => raw.holds[h]),
    };
  };
  return {
    texts: raw.texts,
    scenarios: raw.scenarios.map((sc) => ({
      steps: sc.steps.map((i) => ({ label: raw.steps[i][0], calls: raw.steps[i][1], transfers: raw.steps[i][2] })),
      outcomes: sc.outcomes.map((states) => ({ steps: states.map(state) })),
    })),
  };
}

// reportAudit turns what audit.mjs found at one width into checks.
export function reportAudit(report, where, width, a) {
  const c = a.counts;
  report.check(where, `${width}px: nothing overflows the window sideways`, a.overflow.slice(0, 5));
  report.check(where, `${width}px: the text of all ${c.cells} table cells shown is whole and in the window`, a.cells.slice(0, 5));
  report.check(where, `${width}px: all ${c.arrows} arrows end in a box, and a hold's life fits the window`, a.arrows.slice(0, 5));
  report.check(where, `${width}px: none of ${c.names} names and calls breaks inside a word`, a.names.slice(0, 5));
  report.check(where, `${width}px: every number of ${c.texts} texts has its digits grouped`, a.numbers.slice(0, 5));
  report.check(where, `${width}px: no English label on a Japanese page`, a.english.slice(0, 5));
  if (c.statements >= 0) {
    report.check(where, `${width}px: the ${c.statements} rows of the ${c.statementTables} tables of the statements are ${c.cards ? "cards" : "table rows"}, each cell named by its column, within the window`,
      c.statements > 0 ? a.statements.slice(0, 5) : ["the statements section has no row"]);
  }
}
