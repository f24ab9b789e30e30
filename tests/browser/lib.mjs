// What pages.mjs and mermaid.mjs share: finding and starting Chromium, the
// command line, and the report of checks.
import { chromium } from "playwright-core";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// findChromium takes the browser the machine has (Debian's chromium):
// nothing here may download one.
export function findChromium(flag) {
  const given = flag || process.env.CHOBO_CHROMIUM;
  if (given) {
    return given;
  }
  for (const name of ["chromium", "chromium-browser"]) {
    for (const dir of (process.env.PATH || "").split(path.delimiter)) {
      const p = path.join(dir || ".", name);
      try {
        fs.accessSync(p, fs.constants.X_OK);
        return p;
      } catch {
        // not in this directory
      }
    }
  }
  throw new Error("no Chromium: set CHOBO_CHROMIUM or put chromium on PATH (tests/setup.sh installs Debian's)");
}

export async function launch(executablePath) {
  // As root Chromium refuses to start with its sandbox on.
  const args = process.getuid && process.getuid() === 0 ? ["--no-sandbox"] : [];
  return chromium.launch({ executablePath, args, headless: true, timeout: 180000 });
}

export function chromiumVersion(executablePath) {
  try {
    return execFileSync(executablePath, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown version";
  }
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
