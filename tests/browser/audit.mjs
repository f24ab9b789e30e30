// audit is run inside a page written by `chobo doc --format html`, in
// Chromium and in Firefox alike: it must close over nothing, since each
// driver sends its source to the browser. It measures the page as laid
// out at the window's width and returns, per check, what is wrong:
//
//   overflow  elements past the right edge that no scrolling frame holds
//   cells     table cells whose text is clipped or lies outside the window
//   arrows    arrow ends not inside a box; for a hold's life, boxes not in
//             the window (the diagram must fit, not scroll)
//   names     names and calls broken inside a word (receive.d|o, 送|金.do):
//             a line may end only after a space, a point, a comma or an
//             underscore (between the words of a long snake_case name),
//             or before a name's parameters
//   numbers   numbers of four digits or more written without grouping
//   english   words of `english` (the English labels of the page) on a
//             Japanese page
//   statements  the rows of the statements section that are not laid out
//             as the width wants (on a narrow screen a card per row, each
//             cell beside the name of its column; on a wide one a table),
//             and anything of the section past the right edge
export function audit(english) {
  const vw = document.documentElement.clientWidth;
  const out = { overflow: [], cells: [], arrows: [], names: [], numbers: [], english: [], statements: [], counts: {} };
  const short = (s) => (s || "").replace(/\s+/g, " ").trim().slice(0, 60);
  const visible = (el) => {
    for (let e = el; e; e = e.parentElement) {
      if (e.hidden || getComputedStyle(e).display === "none") {
        return false;
      }
      if (e.tagName === "DETAILS" && !e.open && e !== el) {
        // Inside a closed <details> only the summary shows.
        const summary = e.querySelector("summary");
        if (!summary || !summary.contains(el)) {
          return false;
        }
      }
    }
    return el.getClientRects().length > 0;
  };

  // Elements sticking out past the right edge that no scrolling box of
  // their own holds.
  for (const el of document.body.querySelectorAll("*")) {
    if (el.parentElement && el.parentElement.closest("svg")) {
      continue; // the drawing of a diagram: the diagram itself is measured
    }
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
      out.overflow.push(`${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""} to ${Math.round(r.right)}px ("${short(el.textContent)}")`);
    }
  }
  if (document.scrollingElement.scrollWidth > vw) {
    out.overflow.push(`the page scrolls sideways: ${document.scrollingElement.scrollWidth}px in ${vw}px`);
  }

  // Every cell of every table shown: its text whole and in the window.
  let cells = 0;
  for (const c of document.querySelectorAll("td, th")) {
    if (!visible(c) || c.closest(".visually-hidden") || c.closest("thead") && getComputedStyle(c.closest("thead")).position === "absolute") {
      continue;
    }
    cells++;
    const r = c.getBoundingClientRect();
    if (c.scrollWidth > c.clientWidth + 1) {
      out.cells.push(`"${short(c.textContent)}" is clipped (${c.scrollWidth}px of text in ${c.clientWidth}px)`);
    } else if (r.left < -0.5 || r.right > vw + 0.5) {
      out.cells.push(`"${short(c.textContent)}" lies outside the window (${Math.round(r.left)} to ${Math.round(r.right)}px of ${vw}px)`);
    }
  }
  out.counts.cells = cells;

  // The statements: the same media query as page.css decides whether a
  // table is a list of cards. A card is a block; each of its cells but
  // the first (which heads it) shows its column's name before it.
  const heading = document.getElementById("statements");
  const section = heading && heading.closest("section");
  const cards = matchMedia("(max-width: 47.99rem)").matches;
  let rows = 0;
  let tables = 0;
  if (section) {
    for (const table of section.querySelectorAll("table")) {
      tables++;
      const td = getComputedStyle(table).display;
      if (td !== (cards ? "block" : "table")) {
        out.statements.push(`a table of the statements is display: ${td}`);
      }
      for (const body of table.tBodies) {
        for (const tr of body.rows) {
          rows++;
          const d = getComputedStyle(tr).display;
          if (d !== (cards ? "block" : "table-row")) {
            out.statements.push(`the row "${short(tr.textContent)}" is display: ${d}`);
          }
          [...tr.cells].forEach((c, i) => {
            if (c.tagName !== "TD" || c.colSpan > 1) {
              return; // an account heading its entries, or the count of those left out
            }
            const label = c.getAttribute("data-label");
            if (!label) {
              out.statements.push(`the cell "${short(c.textContent)}" has no name of its column`);
            } else if (cards && i > 0 && ["none", "normal", '""'].includes(getComputedStyle(c, "::before").content)) {
              out.statements.push(`the cell "${short(c.textContent)}" does not show its column's name "${label}"`);
            } else if (cards && i > 0) {
              // Beside the name of its column, the content starts each of
              // its lines where its first starts: none of it falls under
              // the name.
              const range = document.createRange();
              range.selectNodeContents(c);
              const rects = [...range.getClientRects()].filter((r) => r.width > 0);
              if (rects.some((r) => r.left < rects[0].left - 1)) {
                out.statements.push(`the cell "${short(c.textContent)}" is split across the columns of its card`);
              }
            }
          });
        }
      }
    }
    for (const el of section.querySelectorAll("*")) {
      const head = el.closest("thead");
      if (head && getComputedStyle(head).position === "absolute") {
        continue; // the names of the columns, kept for screen readers: each card shows them
      }
      const r = el.getBoundingClientRect();
      if (r.width > 0 && (r.right > vw + 0.5 || r.left < -0.5)) {
        out.statements.push(`${el.tagName.toLowerCase()} lies ${Math.round(r.left)} to ${Math.round(r.right)}px of ${vw}px ("${short(el.textContent)}")`);
      }
    }
  }
  out.counts.statements = section ? rows : -1;
  out.counts.statementTables = tables;
  out.counts.cards = cards;

  // Every arrow ends inside a box; a hold's life lies in the window.
  let arrows = 0;
  for (const svg of document.querySelectorAll("svg.chobo-flow, svg.chobo-life")) {
    if (!visible(svg)) {
      continue;
    }
    const boxes = [...svg.querySelectorAll("rect.box")].map((b) => b.getBoundingClientRect());
    const life = svg.classList.contains("chobo-life");
    for (const p of svg.querySelectorAll("path.arrow")) {
      arrows++;
      const end = p.getPointAtLength(p.getTotalLength());
      const m = p.getScreenCTM();
      const x = m.a * end.x + m.c * end.y + m.e;
      const y = m.b * end.x + m.d * end.y + m.f;
      const box = boxes.find((b) => x >= b.left - 1.5 && x <= b.right + 1.5 && y >= b.top - 1.5 && y <= b.bottom + 1.5);
      const label = short((p.parentElement.querySelector("text.label") || {}).textContent || p.parentElement.getAttribute("class"));
      if (!box) {
        out.arrows.push(`${life ? "hold's life" : "flow"}: the arrow "${label}" ends at (${Math.round(x)}, ${Math.round(y)}), in no box`);
      } else if (life && (box.left < -0.5 || box.right > vw + 0.5)) {
        out.arrows.push(`hold's life: the arrow "${label}" ends in a box outside the window (${Math.round(box.left)} to ${Math.round(box.right)}px of ${vw}px)`);
      }
    }
  }
  out.counts.arrows = arrows;

  // Names and calls break only between words.
  const nameSelector = "td:first-child, th[scope=row], table.ops td:nth-child(2), #transfers h3, summary, ol.calls li, ol.steps button > span:first-child, ul.ledger li, table.statement td:nth-child(2)";
  let names = 0;
  for (const el of document.querySelectorAll(nameSelector)) {
    if (!visible(el)) {
      continue;
    }
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const s = t.data;
      if (s.trim() === "") {
        continue;
      }
      names++;
      const range = document.createRange();
      let prevTop = null;
      let prevChar = "";
      for (let i = 0; i < s.length; i++) {
        const ch = s[i];
        if (/\s/.test(ch)) {
          prevChar = ch;
          continue;
        }
        range.setStart(t, i);
        range.setEnd(t, i + 1);
        const rects = range.getClientRects();
        if (rects.length === 0) {
          continue;
        }
        const top = rects[0].top;
        if (prevTop !== null && top > prevTop + rects[0].height / 2 && !/[\s.,、。:→(_]/.test(prevChar) && ch !== "(") {
          out.names.push(`${el.tagName.toLowerCase()} "${short(s)}" breaks inside a word: "${s.slice(Math.max(0, i - 8), i)}|${s.slice(i, i + 8)}"`);
          break;
        }
        prevTop = top;
        prevChar = ch;
      }
    }
  }
  out.counts.names = names;

  // The text a reader sees: no number of four digits or more ungrouped,
  // and on a Japanese page none of the English labels.
  const texts = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    const p = t.parentElement;
    if (!p || p.closest("script, style, pre") || !(p.closest("svg") || p.closest("select") || visible(p))) {
      continue;
    }
    texts.push(t.data);
  }
  for (const el of document.querySelectorAll("[data-label], [aria-label]")) {
    texts.push(el.getAttribute("data-label") || "", el.getAttribute("aria-label") || "");
  }
  const plain = /(^|[^\p{L}\p{N}_.,-]|(?:^|\s)-)(\d{4,})(?![\d\p{L}_])/u;
  for (const s of texts) {
    // A number inside a word (sku-12345) is a name, not an amount.
    const m = plain.exec(s.replace(/[\p{L}\p{N}_]+-\d+/gu, "x"));
    if (m) {
      out.numbers.push(`"${m[2]}" in "${short(s)}"`);
    }
  }
  if (document.documentElement.lang === "ja" && english) {
    const deny = new Set(english);
    for (const s of texts) {
      for (const w of s.match(/[A-Za-z]{2,}/g) || []) {
        if (deny.has(w.toLowerCase())) {
          out.english.push(`"${w}" in "${short(s)}"`);
        }
      }
    }
  }
  out.counts.texts = texts.length;
  return out;
}
