// The scenario stepper of a chobo doc page. It reads the ledgers the
// page carries as JSON (one per step of every outcome, from the
// reference interpreter), shows one step at a time, marks what changed,
// lights up the arrows of the transfer called, and keeps its place in
// the URL fragment: #scenario=3&step=2&outcome=1.
(function () {
  "use strict";
  // The floor of the flow diagram shrunk to fit (page.css): 70% of the
  // width it was drawn at. A hold's life has none: it always fits.
  document.querySelectorAll(".diagram svg.chobo-flow").forEach(function (svg) {
    var w = parseFloat(svg.getAttribute("width"));
    if (w > 0) { svg.style.minWidth = (w * 0.7) + "px"; }
  });
  // A flow wider than its frame scrolls in it, and a phone shows no
  // scroll bar until the frame is touched: the line above the diagram
  // says so while it does not fit.
  var flowFrame = document.getElementById("flow-diagram");
  var flowHint = document.getElementById("flow-hint");
  if (flowFrame && flowHint) {
    var hintFlow = function () { flowHint.hidden = flowFrame.scrollWidth <= flowFrame.clientWidth + 1; };
    hintFlow();
    window.addEventListener("resize", hintFlow);
  }
  // On a narrow screen a table is a list of cards, each cell beside the
  // name of its column (page.css): the names come from the table's head.
  function labelCells(table) {
    var heads = table.tHead ? table.tHead.rows[0].cells : [];
    Array.prototype.forEach.call(table.tBodies, function (body) {
      Array.prototype.forEach.call(body.rows, function (row) {
        Array.prototype.forEach.call(row.cells, function (c, i) {
          var h = heads[i];
          if (c.tagName === "TD" && h && !h.querySelector(".visually-hidden")) { c.setAttribute("data-label", h.textContent); }
        });
      });
    });
  }
  document.querySelectorAll("table").forEach(labelCells);
  var raw = JSON.parse(document.getElementById("chobo-data").textContent);
  // The data names each row, hold, step and state by its place in its
  // own list (html.go); the stepper reads them whole.
  var data = {
    texts: raw.texts,
    scenarios: raw.scenarios.map(function (sc) {
      return {
        steps: sc.steps.map(function (i) {
          var st = raw.steps[i];
          return { label: st[0], calls: st[1], transfers: st[2] };
        }),
        outcomes: sc.outcomes.map(function (states) {
          return { steps: states.map(function (i) {
            var st = raw.states[i];
            return {
              answers: st[0],
              refused: st[1],
              ledger: st[2].map(function (r, k) {
                var row = raw.rows[r];
                return { account: row[0], posted: row[1], held_out: row[2], held_in: row[3], changed: st[3].indexOf(k) >= 0 };
              }),
              holds: st[4].map(function (h) { return raw.holds[h]; })
            };
          }) };
        })
      };
    })
  };
  if (data.scenarios.length === 0) { return; }
  var texts = data.texts;
  var scenarioSelect = document.getElementById("scenario");
  var outcomeSelect = document.getElementById("outcome");
  var prevButton = document.getElementById("prev");
  var nextButton = document.getElementById("next");
  var position = document.getElementById("position");
  var stepList = document.getElementById("steps");
  var ledgerBody = document.getElementById("ledger-body");
  var holdsBody = document.getElementById("holds-body");
  var holdsTable = document.getElementById("holds");
  var ledgerTable = document.getElementById("ledger");
  var edges = document.querySelectorAll("#flow-diagram [data-transfer]");
  var at = { s: 0, o: 0, k: 0 };

  function say(template, a, b) {
    return template.replace("%1", String(a)).replace("%2", String(b));
  }

  function clamp(v, n) {
    if (!(v >= 0)) { return 0; }
    return v >= n ? n - 1 : v;
  }

  function fromHash() {
    var want = {};
    location.hash.replace(/^#/, "").split("&").forEach(function (part) {
      var kv = part.split("=");
      if (kv.length === 2) { want[kv[0]] = parseInt(kv[1], 10) - 1; }
    });
    at.s = clamp(want.scenario, data.scenarios.length);
    var sc = data.scenarios[at.s];
    at.o = clamp(want.outcome, sc.outcomes.length);
    at.k = clamp(want.step, sc.steps.length);
  }

  function toHash() {
    var h = "#scenario=" + (at.s + 1) + "&step=" + (at.k + 1) + "&outcome=" + (at.o + 1);
    if (location.hash !== h) { history.replaceState(null, "", h); }
  }

  // group writes an amount as the rest of the page does, a comma between
  // each three digits of its integer part; the data keeps it plain.
  function group(amount) {
    var m = /^(-?)(\d+)(\.\d+)?$/.exec(amount);
    if (!m) { return amount; }
    return m[1] + m[2].replace(/\B(?=(\d{3})+$)/g, ",") + (m[3] || "");
  }

  function cell(row, text) {
    var td = document.createElement("td");
    td.textContent = text;
    row.appendChild(td);
  }

  // breakable writes text into el as the page writes names (html.go): a
  // word longer than a phone's line may break before a name's parameters
  // and after an underscore or a point, and nowhere else. A short word
  // with a hyphen (sku-2) is kept whole: Chromium would break after it.
  function breakable(el, text) {
    var piece = function (part) {
      if (part.indexOf("-") < 0) {
        el.appendChild(document.createTextNode(part));
        return;
      }
      var whole = document.createElement("span");
      whole.className = "nw";
      whole.textContent = part;
      el.appendChild(whole);
    };
    text.split(/(\s+)/).forEach(function (word) {
      if (Array.from(word).length <= 16) {
        piece(word);
        return;
      }
      word.split(/(?=\()|(?<=[_.])/).forEach(function (part, i) {
        if (i > 0) { el.appendChild(document.createElement("wbr")); }
        piece(part);
      });
    });
  }

  function nameCell(row, name) {
    var td = document.createElement("td");
    breakable(td, name);
    row.appendChild(td);
  }

  function fillOutcomes() {
    var sc = data.scenarios[at.s];
    outcomeSelect.textContent = "";
    sc.outcomes.forEach(function (_, i) {
      var opt = document.createElement("option");
      opt.value = String(i);
      opt.textContent = say(texts.outcomeOf, i + 1, sc.outcomes.length);
      outcomeSelect.appendChild(opt);
    });
    outcomeSelect.disabled = sc.outcomes.length < 2;
  }

  function fillSteps() {
    var sc = data.scenarios[at.s];
    var outcome = sc.outcomes[at.o];
    stepList.textContent = "";
    sc.steps.forEach(function (step, i) {
      var state = outcome.steps[i];
      var li = document.createElement("li");
      var b = document.createElement("button");
      b.type = "button";
      b.dataset.step = String(i);
      if (state.refused.length > 0) { li.className = "refused"; }
      var head = document.createElement("span");
      breakable(head, (i + 1) + ". " + step.label);
      b.appendChild(head);
      var lines = step.calls.length > 0 ? step.calls : [null];
      lines.forEach(function (call, j) {
        var line = document.createElement("span");
        line.style.display = "block";
        if (call !== null) { breakable(line, call + " "); }
        var answer = document.createElement("span");
        answer.className = "answer";
        answer.textContent = state.answers[j] !== undefined ? "→ " + state.answers[j] : "";
        line.appendChild(answer);
        b.appendChild(line);
      });
      b.addEventListener("click", function () { go(i, true); });
      li.appendChild(b);
      stepList.appendChild(li);
    });
  }

  function show(focusStep) {
    var sc = data.scenarios[at.s];
    var state = sc.outcomes[at.o].steps[at.k];
    scenarioSelect.value = String(at.s);
    outcomeSelect.value = String(at.o);
    position.textContent = say(texts.stepOf, at.k + 1, sc.steps.length) + ": " + sc.steps[at.k].label;
    prevButton.disabled = at.k === 0;
    nextButton.disabled = at.k === sc.steps.length - 1;
    var buttons = stepList.querySelectorAll("button");
    buttons.forEach(function (b, i) {
      if (i === at.k) { b.setAttribute("aria-current", "step"); } else { b.removeAttribute("aria-current"); }
    });
    if (focusStep && buttons[at.k]) { buttons[at.k].focus(); }
    ledgerBody.textContent = "";
    state.ledger.forEach(function (row) {
      var tr = document.createElement("tr");
      if (row.changed) { tr.className = "changed"; }
      nameCell(tr, row.account);
      cell(tr, group(row.posted));
      cell(tr, group(row.held_out));
      cell(tr, group(row.held_in));
      cell(tr, row.changed ? texts.changed : "");
      ledgerBody.appendChild(tr);
    });
    labelCells(ledgerTable);
    holdsBody.textContent = "";
    state.holds.forEach(function (h) {
      var tr = document.createElement("tr");
      nameCell(tr, h[0]);
      cell(tr, h[1]);
      holdsBody.appendChild(tr);
    });
    labelCells(holdsTable);
    holdsTable.hidden = state.holds.length === 0;
    edges.forEach(function (e) {
      var t = parseInt(e.getAttribute("data-transfer"), 10);
      var called = sc.steps[at.k].transfers.indexOf(t) >= 0;
      e.classList.toggle("called", called && state.refused.indexOf(t) < 0);
      e.classList.toggle("refused", called && state.refused.indexOf(t) >= 0);
    });
    toHash();
  }

  function go(k, focusStep) {
    var n = data.scenarios[at.s].steps.length;
    at.k = clamp(k, n);
    show(focusStep);
  }

  scenarioSelect.addEventListener("change", function () {
    at.s = parseInt(scenarioSelect.value, 10);
    at.o = 0;
    at.k = 0;
    fillOutcomes();
    fillSteps();
    show(false);
  });
  outcomeSelect.addEventListener("change", function () {
    at.o = parseInt(outcomeSelect.value, 10);
    fillSteps();
    show(false);
  });
  prevButton.addEventListener("click", function () { go(at.k - 1, false); });
  nextButton.addEventListener("click", function () { go(at.k + 1, false); });
  document.addEventListener("keydown", function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA" || e.altKey || e.ctrlKey || e.metaKey) { return; }
    var inSteps = stepList.contains(e.target);
    if (e.key === "ArrowRight" || (inSteps && e.key === "ArrowDown")) {
      e.preventDefault();
      go(at.k + 1, inSteps);
    } else if (e.key === "ArrowLeft" || (inSteps && e.key === "ArrowUp")) {
      e.preventDefault();
      go(at.k - 1, inSteps);
    }
  });
  window.addEventListener("hashchange", function () {
    var s = at.s, o = at.o;
    fromHash();
    if (s !== at.s) { fillOutcomes(); }
    if (s !== at.s || o !== at.o) { fillSteps(); }
    show(false);
  });

  document.getElementById("stepper").hidden = false;
  fromHash();
  fillOutcomes();
  fillSteps();
  show(false);
})();
