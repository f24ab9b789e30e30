// Renders every ```mermaid block of Markdown files (as `chobo doc` writes
// them) with Mermaid itself, in headless Chromium and offline: the
// browser bundle comes from node_modules, and any request the page makes
// is refused. A block that Mermaid cannot parse or draw fails, named by
// its file and first line.
//
//   node mermaid.mjs [--chromium PATH] PAGE.md...
//
// Exits 1 when any block fails, 2 when it cannot run at all.
import fs from "node:fs";
import path from "node:path";
import { createRequire } from "node:module";
import { chromiumVersion, findChromium, launch, parseArgs, Report } from "./lib.mjs";

function usage(msg) {
  console.error(`mermaid.mjs: ${msg}\nusage: node mermaid.mjs [--chromium PATH] PAGE.md...`);
  process.exit(2);
}

// blocks takes the fenced mermaid blocks out of Markdown, with the line
// each starts on.
export function blocks(text) {
  const out = [];
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const open = /^( {0,3})(`{3,}|~{3,})\s*mermaid\s*$/.exec(lines[i]);
    if (!open) {
      continue;
    }
    const fence = open[2];
    const body = [];
    let j = i + 1;
    for (; j < lines.length; j++) {
      const close = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(lines[j]);
      if (close && close[1][0] === fence[0] && close[1].length >= fence.length) {
        break;
      }
      body.push(lines[j]);
    }
    out.push({ line: i + 1, text: body.join("\n"), closed: j < lines.length });
    i = j;
  }
  return out;
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2), ["chromium"]);
  } catch (e) {
    usage(e.message);
  }
  if (args.files.length === 0) {
    usage("no Markdown file given");
  }
  let executable;
  try {
    executable = findChromium(args.opts.chromium);
  } catch (e) {
    usage(e.message);
  }
  const require = createRequire(import.meta.url);
  const bundle = path.join(path.dirname(require.resolve("mermaid/package.json")), "dist", "mermaid.min.js");
  const version = require("mermaid/package.json").version;
  if (!fs.existsSync(bundle)) {
    usage(`Mermaid's browser bundle is not at ${bundle}`);
  }

  const report = new Report();
  console.log(`chromium: ${executable} (${chromiumVersion(executable)}), mermaid ${version}`);
  const browser = await launch(executable);
  let total = 0;
  try {
    const context = await browser.newContext();
    context.setDefaultTimeout(120000);
    const stray = new Set();
    await context.route("**/*", (route) => {
      const u = route.request().url();
      if (u.startsWith("data:") || u === "about:blank") {
        return route.continue();
      }
      stray.add(u);
      return route.abort("blockedbyclient");
    });
    const page = await context.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.setContent("<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><div id=\"out\"></div></body></html>");
    await page.addScriptTag({ path: bundle });
    await page.evaluate(() => {
      // strict is what hosts that render Markdown use: no script in labels.
      window.mermaid.initialize({ startOnLoad: false, securityLevel: "strict" });
    });
    for (const file of args.files) {
      const where = path.basename(path.dirname(file)) + "/" + path.basename(file);
      let found;
      try {
        found = blocks(fs.readFileSync(file, "utf8"));
      } catch (e) {
        report.fail(where, "reading", e.message);
        continue;
      }
      let rendered = 0;
      for (let b = 0; b < found.length; b++) {
        const block = found[b];
        const first = block.text.split("\n")[0];
        const name = `block at line ${block.line} (${first})`;
        if (!block.closed) {
          report.fail(where, name, "the fence is never closed");
          continue;
        }
        const res = await page.evaluate(async ([id, text]) => {
          try {
            const { svg } = await window.mermaid.render(id, text, document.getElementById("out"));
            return { svg: svg || "" };
          } catch (e) {
            return { error: String((e && e.message) || e) };
          } finally {
            document.getElementById("out").textContent = "";
          }
        }, [`m${total}`, block.text]);
        total++;
        if (res.error) {
          report.fail(where, name, res.error.split("\n").join(" | "));
        } else if (!res.svg.includes("<svg")) {
          report.fail(where, name, "Mermaid gave no <svg");
        } else if (/class="error-icon"|Syntax error in text/.test(res.svg)) {
          report.fail(where, name, "Mermaid drew its error picture");
        } else {
          rendered++;
        }
      }
      report.check(where, `${rendered} of ${found.length} mermaid blocks rendered`, rendered === found.length ? [] : [`${found.length - rendered} failed (see above)`]);
    }
    report.check("mermaid", "no request while rendering", [...stray].map((u) => `requested ${u}`));
    report.check("mermaid", "no script error while rendering", errors);
    await context.close();
  } finally {
    await browser.close();
  }
  console.log(`mermaid: ${total} blocks in ${args.files.length} files`);
  report.finish("mermaid");
}

await main();
