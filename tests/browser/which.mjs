// Finding a browser the machine already has: nothing here may download one.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

// onPath is the first of names that PATH holds as an executable, else null.
export function onPath(names) {
  for (const name of names) {
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
  return null;
}

// versionOf is what `executable --version` prints, for the test's log.
export function versionOf(executable) {
  try {
    return execFileSync(executable, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown version";
  }
}
