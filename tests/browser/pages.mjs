// Drives HTML pages written by `chobo doc --format html` in headless
// Chromium as a reader would: loads each from a file:// URL with every
// other request refused and recorded, steps through scenarios by keyboard
// and by click comparing what the page shows with the JSON it carries,
// reopens the URL fragment, and takes full-page screenshots at a phone's
// and a desktop's width in light and dark.
//
//   node pages.mjs --out DIR [--chromium PATH] [--english WORDS.json] PAGE.html...
//
// WORDS.json lists the English labels of the pages, which a Japanese page
// must not write (TestBrowserPages works them out from the cases).
//
// Exits 1 when any check fails, 2 when it cannot run at all.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { audit } from "./audit.mjs";
import { chromiumVersion, decodeData, findChromium, launch, parseArgs, Report, reportAudit } from "./lib.mjs";

// The fewest steps to visit on a page that has that many.
const minSteps = 10;
const widths = [360, 1280];
const schemes = ["light", "dark"];
const height = 900;

function usage(msg) {
  console.error(`pages.mjs: ${msg}\nusage: node pages.mjs --out DIR [--chromium PATH] PAGE.html...`);
  process.exit(2);
}

let args;
let browser;
let english = null;
const report = new Report();

// say fills a template of the page's texts the way stepper.js does.
function say(template, a, b) {
  return template.replace("%1", String(a)).replace("%2", String(b));
}

// grouped is how the page shows an amount the data keeps plain: its
// integer part in groups of three, worked out here with BigInt so that
// the check does not share the stepper's code.
function grouped(amount) {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
  if (!m) {
    return amount;
  }
  return m[1] + BigInt(m[2]).toLocaleString("en-US") + (m[3] || "");
}

function placeName(s, o, k) {
  return `scenario ${s + 1} outcome ${o + 1} step ${k + 1}`;
}

async function checkPage(file, where) {
  const url = pathToFileURL(path.resolve(file)).href;
  const context = await browser.newContext({ viewport: { width: 1280, height }, colorScheme: "light" });
  context.setDefaultTimeout(120000);
  const stray = new Set();
  const violations = [];
  const errors = [];
  const own = (u) => u.split("#")[0] === url || u.startsWith("data:");
  // A page must stand alone: anything it would fetch is refused here and
  // counted, whether or not its CSP stopped it first.
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (own(u)) {
      return route.continue();
    }
    stray.add(u);
    return route.abort("blockedbyclient");
  });
  await context.exposeBinding("__choboViolation", (_source, v) => violations.push(v));
  await context.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) => {
      window.__choboViolation(`${e.violatedDirective} refused ${e.blockedURI || "(inline)"} (${e.sourceFile || "page"}:${e.lineNumber})`);
    });
  });
  const open = async (hash) => {
    const page = await context.newPage();
    page.on("request", (r) => {
      if (!own(r.url())) {
        stray.add(r.url());
      }
    });
    page.on("console", (m) => {
      if (m.type() === "error") {
        errors.push(`console: ${m.text()}`);
      }
    });
    page.on("pageerror", (e) => errors.push(`script error: ${e.message}`));
    await page.goto(url + (hash || ""), { waitUntil: "load" });
    return page;
  };

  const page = await open("");
  const data = decodeData(await page.evaluate(() => JSON.parse(document.getElementById("chobo-data").textContent)));
  const csp = await page.evaluate(() => {
    const m = document.querySelector('meta[http-equiv="Content-Security-Policy"]');
    return m ? m.content : "";
  });
  report.check(where, "Content-Security-Policy meta forbids by default", /(^|;)\s*default-src 'none'/.test(csp) ? [] : [`got ${JSON.stringify(csp)}`]);

  let lit = null;
  if (data.scenarios.length === 0) {
    const hidden = await page.evaluate(() => document.getElementById("stepper").hidden);
    report.check(where, "no scenarios: the stepper stays hidden", hidden ? [] : ["the stepper is shown with nothing to step"]);
  } else {
    lit = await checkStepper(page, data, where, open);
    await checkFocus(page, data, where);
    await checkNames(page, where);
    await checkStatementsLink(page, data, where);
    // The screenshots show a step with its arrows lit.
    await goTo(page, data, lit || { s: 0, o: 0, k: 0 });
  }
  await checkLayout(page, where);

  await page.close();
  await context.close();
  report.check(where, "no request besides the page itself", [...stray].map((u) => `requested ${u}`));
  report.check(where, "no Content-Security-Policy violation", violations);
  report.check(where, "no console error or script error", errors);
}

// readState is what the stepper shows, as plain data.
async function readState(page) {
  return page.evaluate(() => {
    const q = (id) => document.getElementById(id);
    const rows = (el) => [...el.querySelectorAll("tr")].map((tr) => ({
      cells: [...tr.cells].map((td) => td.textContent),
      changed: tr.classList.contains("changed"),
    }));
    const active = document.activeElement;
    return {
      hidden: q("stepper").hidden,
      scenario: q("scenario").value,
      outcome: q("outcome").value,
      outcomeOptions: q("outcome").options.length,
      outcomeDisabled: q("outcome").disabled,
      position: q("position").textContent,
      current: [...q("steps").querySelectorAll('button[aria-current="step"]')].map((b) => b.dataset.step),
      stepButtons: q("steps").querySelectorAll("button").length,
      refusedItems: [...q("steps").children].map((li) => li.classList.contains("refused")),
      prevDisabled: q("prev").disabled,
      nextDisabled: q("next").disabled,
      ledger: rows(q("ledger-body")),
      holds: rows(q("holds-body")),
      holdsHidden: q("holds").hidden,
      edges: [...document.querySelectorAll("#flow-diagram [data-transfer]")].map((e) => ({
        t: parseInt(e.getAttribute("data-transfer"), 10),
        called: e.classList.contains("called"),
        refused: e.classList.contains("refused"),
      })),
      hash: location.hash,
      focusedStep: active && q("steps").contains(active) && active.dataset ? active.dataset.step : null,
    };
  });
}

// differences lists where the shown state is not the JSON's step k of
// outcome o of scenario s.
function differences(data, s, o, k, dom) {
  const out = [];
  const sc = data.scenarios[s];
  const n = sc.steps.length;
  const step = sc.steps[k];
  const state = sc.outcomes[o].steps[k];
  const want = (what, got, exp) => {
    if (JSON.stringify(got) !== JSON.stringify(exp)) {
      out.push(`${what}: shows ${JSON.stringify(got)}, want ${JSON.stringify(exp)}`);
    }
  };
  want("stepper hidden", dom.hidden, false);
  want("#scenario", dom.scenario, String(s));
  want("#outcome", dom.outcome, String(o));
  want("outcome choices", dom.outcomeOptions, sc.outcomes.length);
  want("#outcome disabled", dom.outcomeDisabled, sc.outcomes.length < 2);
  want("#position", dom.position, `${say(data.texts.stepOf, k + 1, n)}: ${step.label}`);
  want("aria-current step", dom.current, [String(k)]);
  want("step buttons", dom.stepButtons, n);
  want("refused steps", dom.refusedItems, sc.outcomes[o].steps.map((st) => st.refused.length > 0));
  want("#prev disabled", dom.prevDisabled, k === 0);
  want("#next disabled", dom.nextDisabled, k === n - 1);
  want("ledger rows", dom.ledger.length, state.ledger.length);
  state.ledger.forEach((row, i) => {
    const got = dom.ledger[i];
    if (!got) {
      return;
    }
    want(`ledger row ${i + 1}`, got.cells.slice(0, 4), [row.account, grouped(row.posted), grouped(row.held_out), grouped(row.held_in)]);
    want(`ledger row ${i + 1} (${row.account}) changed`, got.changed, row.changed);
    want(`ledger row ${i + 1} (${row.account}) changed mark`, got.cells[4], row.changed ? data.texts.changed : "");
  });
  want("holds", dom.holds.map((r) => r.cells), state.holds);
  want("holds table hidden", dom.holdsHidden, state.holds.length === 0);
  for (const e of dom.edges) {
    const called = step.transfers.includes(e.t);
    const refused = called && state.refused.includes(e.t);
    want(`arrow of transfer ${e.t} called`, e.called, called && !refused);
    want(`arrow of transfer ${e.t} refused`, e.refused, refused);
  }
  want("fragment", dom.hash, `#scenario=${s + 1}&step=${k + 1}&outcome=${o + 1}`);
  return out;
}

// chooseVisits picks scenarios (and outcomes) so that at least minSteps
// steps are visited: one with more than one outcome, in its first and
// last outcome; one with a refused step; one with holds; then the
// longest.
function chooseVisits(data) {
  const scs = data.scenarios;
  const visits = [];
  const has = (s) => visits.some((v) => v[0] === s);
  const multi = scs.findIndex((sc) => sc.outcomes.length > 1);
  if (multi >= 0) {
    visits.push([multi, 0], [multi, scs[multi].outcomes.length - 1]);
  }
  const pick = (pred) => {
    const s = scs.findIndex((sc, i) => !has(i) && pred(sc));
    if (s >= 0) {
      visits.push([s, 0]);
    }
  };
  pick((sc) => sc.outcomes[0].steps.some((st) => st.refused.length > 0));
  pick((sc) => sc.outcomes[0].steps.some((st) => st.holds.length > 0));
  const total = () => visits.reduce((sum, [s]) => sum + scs[s].steps.length, 0);
  const longest = scs.map((sc, i) => i).sort((a, b) => scs[b].steps.length - scs[a].steps.length || a - b);
  for (const s of longest) {
    if (total() >= minSteps) {
      break;
    }
    if (!has(s)) {
      visits.push([s, 0]);
    }
  }
  return visits;
}

// The ways to step forward and back, taken in turn so that each is used
// on several pages; each says whether it leaves focus on the step.
const forward = [
  { how: "ArrowRight on the page", focus: false, run: async (page) => {
    await page.evaluate(() => document.activeElement && document.activeElement.blur());
    await page.keyboard.press("ArrowRight");
  } },
  { how: "click on #next", focus: false, run: (page) => page.click("#next") },
  { how: "click on the step", focus: true, run: (page, k) => page.click(`#steps button[data-step="${k}"]`) },
  { how: "ArrowDown on a step button", focus: true, run: async (page) => {
    await page.focus('#steps button[aria-current="step"]');
    await page.keyboard.press("ArrowDown");
  } },
  { how: "ArrowRight on a step button", focus: true, run: async (page) => {
    await page.focus('#steps button[aria-current="step"]');
    await page.keyboard.press("ArrowRight");
  } },
];
const backward = [
  { how: "ArrowLeft on the page", focus: false, run: async (page) => {
    await page.evaluate(() => document.activeElement && document.activeElement.blur());
    await page.keyboard.press("ArrowLeft");
  } },
  { how: "click on #prev", focus: false, run: (page) => page.click("#prev") },
  { how: "ArrowUp on a step button", focus: true, run: async (page) => {
    await page.focus('#steps button[aria-current="step"]');
    await page.keyboard.press("ArrowUp");
  } },
  { how: "ArrowLeft on a step button", focus: true, run: async (page) => {
    await page.focus('#steps button[aria-current="step"]');
    await page.keyboard.press("ArrowLeft");
  } },
  { how: "click on the step", focus: true, run: (page, k) => page.click(`#steps button[data-step="${k}"]`) },
];

async function checkStepper(page, data, where, open) {
  const scs = data.scenarios;
  const at = { s: 0, o: 0, k: 0 };
  const visited = new Set();
  let turnF = 0;
  let turnB = 0;
  let lit = null;
  let litCalled = 0;
  let litRefused = 0;

  const expect = async (how, focus) => {
    const dom = await readState(page);
    const problems = differences(data, at.s, at.o, at.k, dom);
    if (focus && dom.focusedStep !== String(at.k)) {
      problems.push(`focus: on step ${dom.focusedStep === null ? "none" : Number(dom.focusedStep) + 1}, want the current step`);
    }
    visited.add(`${at.s}/${at.o}/${at.k}`);
    const called = dom.edges.filter((e) => e.called).length;
    const refused = dom.edges.filter((e) => e.refused).length;
    litCalled += called > 0 ? 1 : 0;
    litRefused += refused > 0 ? 1 : 0;
    if (called > 0 && lit === null) {
      lit = { ...at };
    }
    const n = scs[at.s].steps.length;
    const rows = dom.ledger.length;
    const arrows = called + refused > 0 ? `, arrows ${called} called ${refused} refused` : "";
    report.check(where, `${how}: ${placeName(at.s, at.o, at.k)} of ${n} shown, ${rows} ledger rows${arrows}`, problems);
  };

  await expect("on opening", false);

  for (const [s, o] of chooseVisits(data)) {
    const n = scs[s].steps.length;
    if (s !== at.s) {
      await page.selectOption("#scenario", String(s));
      Object.assign(at, { s, o: 0, k: 0 });
      await expect("choosing the scenario", false);
    }
    if (o !== at.o) {
      // Another outcome keeps the step: same calls, other answers.
      await page.selectOption("#outcome", String(o));
      at.o = o;
      await expect("choosing the outcome", false);
    }
    if (at.k !== 0) {
      await page.click('#steps button[data-step="0"]');
      at.k = 0;
      await expect("click on the first step", true);
    }
    for (let k = 1; k < n; k++) {
      const m = forward[turnF++ % forward.length];
      await m.run(page, k);
      at.k = k;
      await expect(m.how, m.focus);
    }
    const last = forward[0];
    await last.run(page, n);
    await expect(`${last.how} at the last step stays`, false);
    for (let back = 0; back < 2 && at.k > 0; back++) {
      const m = backward[turnB++ % backward.length];
      await m.run(page, at.k - 1);
      at.k--;
      await expect(m.how, m.focus);
    }
    if (at.k === 0) {
      await backward[0].run(page, -1);
      await expect(`${backward[0].how} at the first step stays`, false);
    }
    await checkFragment(page, data, where, open, at);
  }

  report.check(where, `visited ${visited.size} steps`, visited.size >= Math.min(minSteps, totalSteps(data)) ? [] : [`only ${visited.size}, want ${minSteps}`]);

  // The keys belong to a select while it has focus: an arrow there must
  // not step (the select may change scenario on its own).
  await page.focus("#scenario");
  const before = { ...at };
  await page.keyboard.press("ArrowRight");
  {
    const dom = await readState(page);
    const s = Number(dom.scenario);
    const stepped = s === before.s && dom.current[0] !== String(before.k);
    if (s !== before.s) {
      Object.assign(at, { s, o: 0, k: 0 });
    }
    const problems = stepped ? [`ArrowRight in #scenario moved to step ${Number(dom.current[0]) + 1}`] : differences(data, at.s, at.o, at.k, dom);
    report.check(where, "ArrowRight in the scenario select does not step", problems);
  }

  // The fragment is read on hashchange too, and out-of-range places are
  // held to the last scenario, outcome and step.
  const lastS = scs.length - 1;
  const lastO = scs[lastS].outcomes.length - 1;
  const lastK = scs[lastS].steps.length - 1;
  await page.evaluate(() => { location.hash = "#scenario=999&step=999&outcome=999"; });
  await page.waitForFunction((h) => location.hash === h, `#scenario=${lastS + 1}&step=${lastK + 1}&outcome=${lastO + 1}`, { timeout: 10000 }).catch(() => {});
  Object.assign(at, { s: lastS, o: lastO, k: lastK });
  await expect("a fragment out of range, on hashchange", false);

  // Every page with a called or refused step must light its arrows.
  for (const [kind, pred] of [
    ["called", (step, state, t) => !state.refused.includes(t)],
    ["refused", (step, state, t) => state.refused.includes(t)],
  ]) {
    const place = findPlace(data, pred, await edgeTransfers(page));
    if (!place) {
      report.ok(where, `arrows ${kind}: no step of this page has a ${kind} transfer with an arrow`);
      continue;
    }
    await goTo(page, data, place);
    Object.assign(at, { s: place.s, o: place.o, k: place.k });
    const dom = await readState(page);
    const problems = differences(data, at.s, at.o, at.k, dom);
    const on = dom.edges.filter((e) => e.t === place.t && e[kind]).length;
    if (on === 0) {
      problems.push(`no arrow of transfer ${place.t} has class ${kind}`);
    }
    report.check(where, `arrows ${kind}: ${placeName(at.s, at.o, at.k)} lights the arrows of transfer ${place.t} (${on})`, problems);
    if (kind === "called" || lit === null) {
      lit = { s: at.s, o: at.o, k: at.k };
    }
  }
  report.ok(where, `steps with arrows lit while stepping: ${litCalled} called, ${litRefused} refused`);
  return lit;
}

// goTo moves the stepper by its fragment, as a link would, and waits
// until it shows the place; when it never does, the check that follows
// says what it shows instead.
async function goTo(page, data, at) {
  const sc = data.scenarios[at.s];
  const text = `${say(data.texts.stepOf, at.k + 1, sc.steps.length)}: ${sc.steps[at.k].label}`;
  await page.evaluate((h) => { location.hash = h; }, `#scenario=${at.s + 1}&step=${at.k + 1}&outcome=${at.o + 1}`);
  await page.waitForFunction(([t, o]) => document.getElementById("position").textContent === t && document.getElementById("outcome").value === o,
    [text, String(at.o)], { timeout: 10000 }).catch(() => {});
}

function totalSteps(data) {
  return data.scenarios.reduce((sum, sc) => sum + sc.steps.length * sc.outcomes.length, 0);
}

async function edgeTransfers(page) {
  return page.evaluate(() => [...document.querySelectorAll("#flow-diagram [data-transfer]")].map((e) => parseInt(e.getAttribute("data-transfer"), 10)));
}

// findPlace finds the first step calling a transfer that has an arrow
// and for which pred holds.
function findPlace(data, pred, withArrow) {
  for (let s = 0; s < data.scenarios.length; s++) {
    const sc = data.scenarios[s];
    for (let o = 0; o < sc.outcomes.length; o++) {
      for (let k = 0; k < sc.steps.length; k++) {
        const step = sc.steps[k];
        const state = sc.outcomes[o].steps[k];
        const t = step.transfers.find((t) => withArrow.includes(t) && pred(step, state, t));
        if (t !== undefined) {
          return { s, o, k, t };
        }
      }
    }
  }
  return null;
}

// checkFragment reloads the page at the fragment the stepper wrote and
// expects the same place.
async function checkFragment(page, data, where, open, at) {
  const hash = await page.evaluate(() => location.hash);
  const fresh = await open(hash);
  const dom = await readState(fresh);
  await fresh.close();
  const problems = differences(data, at.s, at.o, at.k, dom);
  report.check(where, `reopening ${hash || "(no fragment)"} shows ${placeName(at.s, at.o, at.k)}`, problems);
}

// checkStatementsLink follows the link of the statements section: the
// stepper must show the last step of the scenario the section names, in
// its first outcome, with the same title in the list of scenarios.
async function checkStatementsLink(page, data, where) {
  const link = await page.evaluate(() => {
    const a = document.querySelector('section[aria-labelledby="statements"] a[href^="#scenario="]');
    return a ? { href: a.getAttribute("href"), text: a.textContent } : null;
  });
  if (!link) {
    report.ok(where, "no statements section: no link to follow");
    return;
  }
  const m = /^#scenario=(\d+)&step=(\d+)$/.exec(link.href);
  if (!m) {
    report.check(where, `the statements link ${link.href} names a scenario and a step`, ["it does not"]);
    return;
  }
  const s = Number(m[1]) - 1;
  const k = Number(m[2]) - 1;
  const sc = data.scenarios[s];
  const problems = [];
  if (!sc) {
    problems.push(`the page has no scenario ${s + 1}`);
  } else {
    if (k !== sc.steps.length - 1) {
      problems.push(`step ${k + 1} is not the last of ${sc.steps.length}`);
    }
    await page.click('section[aria-labelledby="statements"] a[href^="#scenario="]');
    const text = `${say(data.texts.stepOf, k + 1, sc.steps.length)}: ${sc.steps[k].label}`;
    await page.waitForFunction((t) => document.getElementById("position").textContent === t, text, { timeout: 10000 }).catch(() => {});
    const shown = await page.evaluate(() => ({
      position: document.getElementById("position").textContent,
      title: document.getElementById("scenario").selectedOptions[0].textContent,
    }));
    if (shown.position !== text) {
      problems.push(`the stepper shows "${shown.position}", want "${text}"`);
    }
    if (shown.title !== link.text) {
      problems.push(`the list of scenarios shows "${shown.title}", the link "${link.text}"`);
    }
    problems.push(...differences(data, s, 0, k, await readState(page)));
  }
  report.check(where, `the statements link opens ${sc ? placeName(s, 0, k) : link.href}, the end of the scenario they are of`, problems);
}

// checkFocus tabs to #next and on to the first step button: both must
// show a focus ring (:focus-visible, as after a Tab).
async function checkFocus(page, data, where) {
  const s = data.scenarios.findIndex((sc) => sc.steps.length > 1);
  await goTo(page, data, { s: s < 0 ? 0 : s, o: 0, k: 0 });
  await page.focus("#scenario");
  const ring = () => page.evaluate(() => {
    const el = document.activeElement;
    const cs = getComputedStyle(el);
    return {
      id: el.id || (el.dataset && el.dataset.step !== undefined ? `step ${Number(el.dataset.step) + 1}` : el.tagName),
      inSteps: document.getElementById("steps").contains(el),
      visible: el.matches(":focus-visible"),
      style: cs.outlineStyle,
      width: cs.outlineWidth,
      color: cs.outlineColor,
    };
  });
  const targets = s < 0 ? ["a step button"] : ["#next", "a step button"];
  for (const target of targets) {
    let f = null;
    for (let i = 0; i < 8; i++) {
      await page.keyboard.press("Tab");
      f = await ring();
      if ((target === "#next" && f.id === "next") || (target !== "#next" && f.inSteps)) {
        break;
      }
      f = null;
    }
    const problems = [];
    if (f === null) {
      problems.push(`Tab from #scenario does not reach ${target}`);
    } else {
      if (!f.visible) {
        problems.push(`${f.id} does not match :focus-visible after Tab`);
      }
      if (f.style === "none" || parseFloat(f.width) === 0) {
        problems.push(`${f.id} has no outline (${f.style} ${f.width})`);
      }
    }
    report.check(where, `focus ring on ${target} after Tab${f ? ` (${f.style} ${f.width} ${f.color})` : ""}`, problems);
  }
}

// checkNames asks Playwright's accessibility snapshot, which computes
// names as assistive technology does, for every select and button.
async function checkNames(page, where) {
  const controls = page.locator("select, button");
  const n = await controls.count();
  const problems = [];
  for (let i = 0; i < n; i++) {
    const c = controls.nth(i);
    const snap = (await c.ariaSnapshot()).split("\n")[0];
    // The snapshot is YAML: a line with a colon in the name comes quoted.
    let line = snap.replace(/^- /, "");
    if (line.startsWith("'")) {
      line = line.slice(1, line.lastIndexOf("'")).replace(/''/g, "'");
    }
    const m = /^(\w+)(?: "((?:[^"\\]|\\.)*)")?/.exec(line);
    if (!m || !m[2] || m[2].trim() === "") {
      const desc = await c.evaluate((el) => `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}`);
      problems.push(`${desc} has no accessible name (${snap})`);
    }
  }
  report.check(where, `accessible names of ${n} selects and buttons`, problems);
}

// checkLayout screenshots the page at each width and scheme, and checks
// that nothing sticks out sideways and that dark is dark.
async function checkLayout(page, where) {
  const base = path.basename(where, path.extname(where));
  for (const width of widths) {
    const backgrounds = {};
    for (const scheme of schemes) {
      await page.setViewportSize({ width, height });
      await page.emulateMedia({ colorScheme: scheme });
      const m = await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => {
        const vw = window.innerWidth;
        const wide = [];
        // What sticks out: elements past the right edge that no scrolling
        // box of their own holds.
        for (const el of document.body.querySelectorAll("*")) {
          const r = el.getBoundingClientRect();
          if (r.width === 0 || r.right <= vw + 0.5) {
            continue;
          }
          let held = false;
          for (let p = el.parentElement; p && p !== document.body; p = p.parentElement) {
            const ox = getComputedStyle(p).overflowX;
            if (ox === "auto" || ox === "scroll" || ox === "hidden" || ox === "clip") {
              held = p.getBoundingClientRect().right <= vw + 0.5;
              break;
            }
          }
          if (!held) {
            const name = el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (typeof el.className === "string" && el.className ? "." + el.className.split(" ").join(".") : "");
            wide.push(`${name} to ${Math.round(r.right)}px ("${(el.textContent || "").trim().slice(0, 40)}")`);
          }
        }
        // The labels of the flow diagram, as drawn: an arrow's label is its
        // background and its text; a box is its frame and its lines. Each
        // text must stay inside its own background or frame (the widths
        // are estimated when the diagram is drawn, the browser measures
        // them), and no label may cover another label or a box. A text's
        // own box is taller than its letters (the font's ascent and
        // descent), so texts are compared with where they belong, and
        // labels with each other by their backgrounds.
        const rectOf = (e) => {
          const r = e.getBoundingClientRect();
          return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
        };
        const meets = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        const within = (t, r) => t.left >= r.left - 0.5 && t.right <= r.right + 0.5;
        const labels = [...document.querySelectorAll("#flow-diagram svg g.edge")].map((g) => ({
          text: g.querySelector("text.label").textContent,
          bg: rectOf(g.querySelector("rect.label-bg")),
          ink: rectOf(g.querySelector("text.label")),
        }));
        const boxes = [...document.querySelectorAll("#flow-diagram svg g.node")].map((g) => ({
          text: g.querySelector("text").textContent,
          frame: rectOf(g.querySelector("rect.box")),
          lines: [...g.querySelectorAll("text")].map((t) => ({ text: t.textContent, ink: rectOf(t) })),
        }));
        const overlaps = [];
        for (const l of labels) {
          if (!within(l.ink, l.bg)) {
            overlaps.push(`label "${l.text}" is wider than its background`);
          }
          for (const b of boxes) {
            if (meets(l.bg, b.frame)) {
              overlaps.push(`label "${l.text}" covers the box of "${b.text}"`);
            }
          }
        }
        for (let i = 0; i < labels.length; i++) {
          for (let j = i + 1; j < labels.length; j++) {
            if (meets(labels[i].bg, labels[j].bg)) {
              overlaps.push(`labels "${labels[i].text}" and "${labels[j].text}" overlap`);
            }
          }
        }
        for (const b of boxes) {
          for (const line of b.lines) {
            if (!within(line.ink, b.frame)) {
              overlaps.push(`"${line.text}" sticks out of its box`);
            }
          }
        }
        const svg = document.querySelector("#flow-diagram svg");
        const frame = document.getElementById("flow-diagram");
        const hint = document.getElementById("flow-hint");
        resolve({
          scrolls: frame ? frame.scrollWidth > frame.clientWidth + 1 : false,
          hinted: hint ? !hint.hidden && hint.getBoundingClientRect().height > 0 : false,
          vw,
          scrolling: document.scrollingElement.scrollWidth,
          labels: labels.length,
          boxes: boxes.length,
          overlaps,
          drawn: svg ? Math.round(svg.getBoundingClientRect().width) : 0,
          natural: svg ? Math.round(parseFloat(svg.getAttribute("width"))) : 0,
          doc: document.documentElement.scrollWidth,
          body: document.body.scrollWidth,
          bg: getComputedStyle(document.body).backgroundColor,
          dark: matchMedia("(prefers-color-scheme: dark)").matches,
          wide: wide.slice(0, 5),
        });
      })));
      backgrounds[scheme] = m.bg;
      const problems = [];
      if (m.scrolling > m.vw) {
        problems.push(`the page scrolls: document.scrollingElement.scrollWidth is ${m.scrolling}px in a ${m.vw}px window`);
      }
      if (m.doc > m.vw) {
        problems.push(`document is ${m.doc}px wide in a ${m.vw}px window`);
      }
      if (m.body > m.vw) {
        problems.push(`body is ${m.body}px wide in a ${m.vw}px window`);
      }
      if (problems.length > 0 && m.wide.length > 0) {
        problems.push(`sticking out: ${m.wide.join(", ")}`);
      }
      if (m.dark !== (scheme === "dark")) {
        problems.push(`prefers-color-scheme: dark is ${m.dark}`);
      }
      report.check(where, `${width}px ${scheme}: no horizontal overflow (document ${m.doc}px, body ${m.body}px)`, problems);
      if (scheme === schemes[0]) {
        reportAudit(report, where, width, await page.evaluate(audit, english));
      }
      if (scheme === schemes[0]) {
        report.check(where, `${width}px: the line that says to scroll the flow diagram is shown exactly when it scrolls in its frame (${m.scrolls ? "it does" : "it fits"})`,
          m.scrolls === m.hinted ? [] : [m.hinted ? "shown, but the diagram fits" : "not shown, but the diagram scrolls"]);
        report.check(where, `${width}px: the ${m.labels} arrow labels and ${m.boxes} boxes of the flow diagram do not overlap (drawn ${m.drawn}px wide of ${m.natural}px)`,
          m.boxes > 0 ? m.overlaps.slice(0, 10) : ["the flow diagram has no box"]);
      }
      const shot = path.resolve(args.opts.out, `${base}-${width}-${scheme}.png`);
      await page.screenshot({ path: shot, fullPage: true });
      console.log(`screenshot ${shot}`);
    }
    report.check(where, `${width}px: dark changes the background (${backgrounds.light} to ${backgrounds.dark})`, backgrounds.light !== backgrounds.dark ? [] : ["the same in light and dark"]);
  }
}

// main runs after every declaration above it has been evaluated.
async function main() {
  try {
    args = parseArgs(process.argv.slice(2), ["out", "chromium", "english"]);
  } catch (e) {
    usage(e.message);
  }
  if (!args.opts.out) {
    usage("--out DIR is needed, for the screenshots");
  }
  if (args.files.length === 0) {
    usage("no page given");
  }
  let executable;
  try {
    executable = findChromium(args.opts.chromium);
  } catch (e) {
    usage(e.message);
  }
  fs.mkdirSync(args.opts.out, { recursive: true });
  if (args.opts.english) {
    english = JSON.parse(fs.readFileSync(args.opts.english, "utf8"));
  }

  console.log(`chromium: ${executable} (${chromiumVersion(executable)})`);
  browser = await launch(executable);
  try {
    for (const file of args.files) {
      const where = path.basename(file);
      try {
        await checkPage(file, where);
      } catch (e) {
        report.fail(where, "driving the page", (e && e.stack) || String(e));
      }
    }
  } finally {
    await browser.close();
  }
  report.finish("pages");
}

await main();
