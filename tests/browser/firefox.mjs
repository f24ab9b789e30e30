// Opens HTML pages written by `chobo doc --format html` in Debian's
// Firefox, headless, over WebDriver BiDi (bidi.mjs), at a phone's and a
// desktop's width: the same layout checks as in Chromium (audit.mjs),
// a few steps of the stepper compared with the data the page carries, and
// a screenshot at each width.
//
//   node --experimental-websocket firefox.mjs --out DIR [--firefox PATH] [--english WORDS.json] PAGE.html...
//
// Exits 1 when any check fails, 2 when it cannot run at all.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { audit } from "./audit.mjs";
import { Firefox, findFirefox, firefoxVersion } from "./bidi.mjs";
import { decodeData, parseArgs, Report, reportAudit } from "./lib.mjs";

const widths = [360, 1280];
const height = 900;
const report = new Report();

function usage(msg) {
  console.error(`firefox.mjs: ${msg}\nusage: node --experimental-websocket firefox.mjs --out DIR [--firefox PATH] [--english WORDS.json] PAGE.html...`);
  process.exit(2);
}

// grouped is how the page shows an amount the data keeps plain.
function grouped(amount) {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  return m ? m[1] + BigInt(m[2]).toLocaleString("en-US") + (m[3] || "") : amount;
}

// shown is what the stepper shows, as JSON text.
const shown = `JSON.stringify({
  position: document.getElementById("position").textContent,
  current: [...document.querySelectorAll('#steps button[aria-current="step"]')].map((b) => b.dataset.step),
  ledger: [...document.querySelectorAll("#ledger-body tr")].map((tr) => [...tr.cells].slice(0, 4).map((c) => c.textContent)),
  holds: [...document.querySelectorAll("#holds-body tr")].map((tr) => [...tr.cells].map((c) => c.textContent)),
  hash: location.hash,
})`;

function differences(data, s, o, k, dom) {
  const sc = data.scenarios[s];
  const state = sc.outcomes[o].steps[k];
  const want = {
    position: `${data.texts.stepOf.replace("%1", String(k + 1)).replace("%2", String(sc.steps.length))}: ${sc.steps[k].label}`,
    current: [String(k)],
    ledger: state.ledger.map((r) => [r.account, grouped(r.posted), grouped(r.held_out), grouped(r.held_in)]),
    holds: state.holds,
    hash: `#scenario=${s + 1}&step=${k + 1}&outcome=${o + 1}`,
  };
  const out = [];
  for (const key of Object.keys(want)) {
    if (JSON.stringify(dom[key]) !== JSON.stringify(want[key])) {
      out.push(`${key}: shows ${JSON.stringify(dom[key])}, want ${JSON.stringify(want[key])}`);
    }
  }
  return out;
}

async function checkPage(ff, file, english, out) {
  const where = path.basename(file);
  const url = pathToFileURL(path.resolve(file)).href;
  for (const width of widths) {
    await ff.setViewport(width, height);
    await ff.navigate(url);
    const data = decodeData(await ff.evaluate(`document.getElementById("chobo-data").textContent`));
    // The longest scenario, stepped from its first step by the next button.
    let s = 0;
    data.scenarios.forEach((sc, i) => {
      if (sc.steps.length > data.scenarios[s].steps.length) {
        s = i;
      }
    });
    if (data.scenarios.length > 0) {
      const sc = data.scenarios[s];
      await ff.navigate(`${url}#scenario=${s + 1}&step=1&outcome=1`);
      for (let k = 0; k < sc.steps.length; k++) {
        if (k > 0) {
          await ff.evaluate(`document.getElementById("next").click(), "null"`);
        }
        const dom = await ff.evaluate(shown);
        report.check(where, `${width}px: scenario ${s + 1} step ${k + 1} of ${sc.steps.length} shows the data's ledger (${dom.ledger.length} rows)`, differences(data, s, 0, k, dom));
      }
    }
    const a = await ff.evaluate(`JSON.stringify((${audit.toString()})(${JSON.stringify(english)}))`);
    reportAudit(report, where, width, a);
    const shot = path.resolve(out, `${path.basename(where, ".html")}-firefox-${width}.png`);
    await ff.screenshot(shot);
    console.log(`screenshot ${shot}`);
  }
}

async function main() {
  let args;
  try {
    args = parseArgs(process.argv.slice(2), ["out", "firefox", "english"]);
  } catch (e) {
    usage(e.message);
  }
  if (!args.opts.out || args.files.length === 0) {
    usage("--out DIR and at least one page are needed");
  }
  const executable = findFirefox(args.opts.firefox);
  if (!executable) {
    usage("no Firefox: set CHOBO_FIREFOX or put firefox-esr on PATH (tests/setup.sh installs Debian's)");
  }
  const english = args.opts.english ? JSON.parse(fs.readFileSync(args.opts.english, "utf8")) : null;
  fs.mkdirSync(args.opts.out, { recursive: true });
  console.log(`firefox: ${executable} (${firefoxVersion(executable)})`);
  const ff = await Firefox.launch(executable);
  try {
    for (const file of args.files) {
      try {
        await checkPage(ff, file, english, args.opts.out);
      } catch (e) {
        report.fail(path.basename(file), "driving the page", (e && e.stack) || String(e));
      }
    }
  } finally {
    await ff.close();
  }
  report.finish("firefox");
}

await main();
