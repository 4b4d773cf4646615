// Layout check for rigel's HTML reports, run inside headless chromium by check-in-chromium.sh:
// appended to a copy of a report, shown in a frame of the width checked (headless chromium lays a
// window out at 500 px at least, so a phone's 390 px needs the frame), it writes what it finds into the pre element "rigel-layout-check", which
// `chromium --dump-dom` prints. It looks for what a reader would see as broken at this window width:
// a page that scrolls sideways, an element cut at the right edge outside a scrolling box, chart
// labels (titles, axis ticks, legends) drawn over one another or cut at the chart's edge, legends of
// more than 8 entries, series whose points all sit at one x, and (at 1280 px and wider) a table
// that needs a sideways scrollbar. Load labels beside the markers of a
// hockey-stick chart may touch where the device saturates; they are only checked against the rest.
(function () {
  const width = document.documentElement.clientWidth;
  const found = [];
  const scrolls = (el) => {
    for (let p = el.parentElement; p; p = p.parentElement) {
      const o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") return true;
    }
    return false;
  };
  if (document.documentElement.scrollWidth > width + 1) {
    found.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${width}`);
  }
  for (const el of document.body.querySelectorAll("*")) {
    if (el.closest("svg") && el.tagName.toLowerCase() !== "svg") continue;
    const r = el.getBoundingClientRect();
    if (r.width > 0 && r.right > width + 1 && !scrolls(el)) {
      found.push(`<${el.tagName.toLowerCase()}> ends at ${Math.round(r.right)} px, past ${width}`);
    }
  }
  for (const svg of document.querySelectorAll("svg")) {
    const name = (svg.querySelector("title") || {}).textContent || svg.getAttribute("aria-label") || "a chart";
    const texts = [...svg.querySelectorAll("text")]
      .map((t) => ({ t, r: t.getBoundingClientRect(), point: t.getAttribute("font-size") === "12" }))
      .filter((x) => x.r.width > 0 && x.t.textContent.trim() !== "");
    for (let i = 0; i < texts.length; i++) {
      for (let j = i + 1; j < texts.length; j++) {
        const a = texts[i], b = texts[j];
        if (a.point && b.point) continue;
        const ox = Math.min(a.r.right, b.r.right) - Math.max(a.r.left, b.r.left);
        const oy = Math.min(a.r.bottom, b.r.bottom) - Math.max(a.r.top, b.r.top);
        if (ox > 1 && oy > 1) {
          found.push(`in ${name.trim()}: "${a.t.textContent}" overlaps "${b.t.textContent}"`);
        }
      }
    }
  }
  // Charts that do not fit their data: a legend of more than 8 entries (split into small multiples
  // instead), text cut at the chart's edge, and a line series whose points all sit at one x (a class
  // held at one load drawn against load: it belongs in a table row or a bar).
  for (const svg of document.querySelectorAll("svg")) {
    const name = ((svg.querySelector("title") || {}).textContent || "a chart").trim();
    const box = svg.getBoundingClientRect();
    if (box.width === 0) continue;
    const legend = svg.querySelectorAll('line[stroke-width="3"]').length;
    if (legend > 8) found.push(`in ${name}: a legend of ${legend} entries (at most 8)`);
    for (const t of svg.querySelectorAll("text")) {
      const r = t.getBoundingClientRect();
      if (r.width === 0 || t.textContent.trim() === "") continue;
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1) {
        found.push(`in ${name}: "${t.textContent}" is cut at the chart's edge`);
      }
    }
    for (const line of svg.querySelectorAll("polyline")) {
      const xs = new Set((line.getAttribute("points") || "").trim().split(/\s+/)
        .filter((p) => p).map((p) => p.split(",")[0]));
      if (xs.size < 2) {
        found.push(`in ${name}: a series with ${xs.size === 0 ? "no point" : "every point at one x"}`);
      }
    }
  }
  // At a desktop's width every table fits its box: no column hidden behind a scrollbar. (A phone
  // may swipe a wide table sideways.)
  if (width >= 1280) {
    for (const box of document.querySelectorAll(".scroll")) {
      if (box.scrollWidth > box.clientWidth + 1) {
        const head = [...box.querySelectorAll("th")].map((th) => th.textContent.trim()).join(" | ");
        found.push(`a table needs sideways scrolling at ${width} px (${box.scrollWidth} px in ${box.clientWidth}): ${head.slice(0, 120)}`);
      }
    }
  }
  // Inside the frame that gives the page its width, the verdict goes to the outer page, the one
  // `--dump-dom` prints.
  const host = window.frameElement ? window.parent.document : document;
  const out = host.createElement("pre");
  out.id = "rigel-layout-check";
  out.textContent = found.length ? found.slice(0, 40).join("\n") : "OK";
  host.body.appendChild(out);
})();
