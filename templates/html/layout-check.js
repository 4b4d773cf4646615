// Layout check for rigel's HTML reports, run inside headless chromium by check-in-chromium.sh:
// appended to a copy of a report, shown in a frame of the width checked (headless chromium lays a
// window out at 500 px at least, so a phone's 390 px needs the frame), it writes what it finds into the pre element "rigel-layout-check", which
// `chromium --dump-dom` prints. It looks for what a reader would see as broken at this window width:
// a page that scrolls sideways, an element cut at the right edge outside a scrolling box, and chart
// labels (titles, axis ticks, legends) drawn over one another. Load labels beside the markers of a
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
  // Inside the frame that gives the page its width, the verdict goes to the outer page, the one
  // `--dump-dom` prints.
  const host = window.frameElement ? window.parent.document : document;
  const out = host.createElement("pre");
  out.id = "rigel-layout-check";
  out.textContent = found.length ? found.slice(0, 40).join("\n") : "OK";
  host.body.appendChild(out);
})();
