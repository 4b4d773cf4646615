#!/bin/sh
# Looks at rigel's HTML reports in headless chromium, so a person can check the PNGs and PDFs:
#  1. every results fixture (tests/fixtures/results-*.json) rendered as HTML, screenshot at a desktop
#     and a phone width and printed to A4 PDF (the ignored test html_screenshots_in_chromium of rigel-report);
#  2. a real, shortened run of specs/bs-qd-sweep.toml on a tmpfs file: every chart kind must be
#     there (IOPS/MB/s and latency vs load, hockey stick, per-second, percentiles), every SVG must
#     parse as XML, and its report.html is screenshot at both widths and printed to PDF;
#  2b. real runs of a `row` matrix with a class held at one load (on a loop device over tmpfs), a
#     `detailed` grid and a `[sweep]` over size × mix, each screenshot at both widths;
#  2c. `rigel history` over the runs above and two more of row-held and one more of the sweep (6 runs
#     of 4 specs: two trend charts, two comparisons): index.html and a comparison page screenshot
#     at both widths;
#  3. every page above (the history's too) laid out at both widths and measured in the page
#     (layout-check.js): no sideways scrolling, nothing cut at the right edge, no chart labels over
#     one another or cut at a chart's edge, no legend of more than 8 entries, no series with every
#     point at one x, and no table that needs a scrollbar at 1280 px.
# Not part of `cargo test` (it needs chromium, and the runs take about three minutes): `.ci/run` runs
# it after the tests. It installs Debian's chromium and poppler-utils when missing, needs root for
# the loop device (losetup), and exits 1 when the layout check finds a problem.
#
#   crates/rigel-report/templates/html/check-in-chromium.sh [OUT_DIR]        (default: target/html-screenshots)
#   RIGEL_SCREENSHOT_SIZES="desktop=1280,3600 phone=390,7000" picks the window sizes.
set -eu
cd "$(dirname "$0")/../../../.."
command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium poppler-utils; }
out="${1:-${CARGO_TARGET_DIR:-target}/html-screenshots}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
sizes="${RIGEL_SCREENSHOT_SIZES:-desktop=1280,3600 phone=390,7000}"
# Not `-p rigel-report`: one package alone resolves its features apart from the workspace's, so the
# whole dependency tree would build a second time (twice the disk; CI's linker died of it).
RIGEL_SCREENSHOT_DIR="$out" RIGEL_SCREENSHOT_SIZES="$sizes" \
    cargo test --lib html_screenshots_in_chromium -- --ignored --nocapture

# 2. The real run: 9 block sizes × queue depths 1..16, 1 s a point. The binary as `cargo test`
# builds it (`cargo build` resolves features without the dev-dependencies and would rebuild).
cargo test --no-run --quiet
scratch="$(mktemp -d /dev/shm/rigel-check.XXXXXX)"
trap 'rm -rf "$scratch"' EXIT
run="$out/bs-qd-sweep"
rm -rf "$run"
target/debug/rigel run specs/bs-qd-sweep.toml --out "$run" \
    --set lun="$scratch/target.bin" --set target.0.size=256MiB \
    --set run.duration=1s --set run.warmup=200ms --set 'matrix.io=1..=16 x2'
for kind in iops mbps latency- hockey- percentiles-; do
    ls "$run"/chart-"$kind"*.svg >/dev/null 2>&1 || { echo "no chart-$kind*.svg in $run" >&2; exit 1; }
done
# 2b. Real runs of the other matrix shapes, 1 s points (5 s where per-second charts are wanted):
#   row:      an 8 KiB 70/30 class swept over loads 1..32 beside a 1 MiB stream held at 1, on a loop
#             device over a tmpfs file (the device's own counters give the "At the devices" table);
#   detailed: tests/fixtures/specs/two-classes.toml, every combination of both classes' loads;
#   sweep:    tests/fixtures/specs/sweep-size-mix.toml, a [sweep] over size × mix.
truncate -s 512M "$scratch/loop.img"
loop="$(losetup -f --show --direct-io=on "$scratch/loop.img")"
trap 'losetup -d "$loop" 2>/dev/null; rm -rf "$scratch"' EXIT
cat >"$scratch/row-held.toml" <<'TOML'
[spec]
name = "row-held"
description = "8 KiB 70/30 swept over loads 1..32 beside a 1 MiB sequential stream held at 1"
[vars]
lun = "/dev/null"
[[target]]
path = "${lun}"
destructive = true
[run]
duration = "1s"
warmup = "200ms"
[class.oltp]
size = "8KiB"
mix = "70% read"
[class.seq]
size = "1MiB"
access = "sequential"
[matrix]
shape = "row"
oltp = "1..=32 x2"
seq = "1"
TOML
shapes="row-held detailed sweep"
rm -rf "$out/row-held" "$out/detailed" "$out/sweep"
target/debug/rigel run "$scratch/row-held.toml" --out "$out/row-held" --set lun="$loop" \
    --allow-destructive
mkdir "$scratch/detailed" "$scratch/sweep"
target/debug/rigel run tests/fixtures/specs/two-classes.toml --out "$out/detailed" \
    --set dir="$scratch/detailed" --set run.duration=5s --set run.warmup=200ms
target/debug/rigel run tests/fixtures/specs/sweep-size-mix.toml --out "$out/sweep" \
    --set dir="$scratch/sweep" --set run.duration=1s
ls "$out/row-held"/chart-held-seq.svg "$out/detailed"/chart-seconds-*.svg >/dev/null
# 2c. The history over these runs: row-held three times, the sweep twice (shorter points).
rm -rf "$out/again" "$out/index.html" "$out/history"
for i in 2 3; do
    target/debug/rigel run "$scratch/row-held.toml" --out "$out/again/row-held-$i" --set lun="$loop" \
        --allow-destructive --set run.duration=300ms --set run.warmup=100ms >/dev/null 2>&1
done
target/debug/rigel run tests/fixtures/specs/sweep-size-mix.toml --out "$out/again/sweep-2" \
    --set dir="$scratch/sweep" --set run.duration=300ms >/dev/null 2>&1
target/debug/rigel history "$out"
test "$(grep -o '<figure id="trend-' "$out/index.html" | wc -l)" = 2
ls "$out"/history/compare-*.html >/dev/null
python3 - "$run" <<'PY'
import sys, pathlib, xml.dom.minidom
svgs = sorted(pathlib.Path(sys.argv[1]).glob("chart-*.svg"))
for s in svgs:
    xml.dom.minidom.parse(str(s))
html = (pathlib.Path(sys.argv[1]) / "report.html").read_text()
md = (pathlib.Path(sys.argv[1]) / "report.md").read_text()
missing = [s.name for s in svgs if s.name not in md]
assert not missing, f"report.md does not show {missing}"
assert html.count("<svg") >= len(svgs), "report.html does not inline every chart"
print(f"{len(svgs)} SVGs parse as XML; report.md links and report.html inlines them all")
PY
flags="--headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
--disable-background-networking --disable-component-update --disable-sync --disable-dev-shm-usage \
--user-data-dir=$scratch/profile"
for s in $sizes; do
    label="${s%%=*}"
    # shellcheck disable=SC2086
    chromium $flags --hide-scrollbars --window-size="${s#*=}" \
        --screenshot="$out/bs-qd-sweep-$label.png" "file://$run/report.html" 2>/dev/null
    test "$(stat -c %s "$out/bs-qd-sweep-$label.png")" -gt 10000
    for shape in $shapes; do
        # shellcheck disable=SC2086
        chromium $flags --hide-scrollbars --window-size="${s#*=}" \
            --screenshot="$out/$shape-$label.png" "file://$out/$shape/report.html" 2>/dev/null
    done
    # shellcheck disable=SC2086
    chromium $flags --hide-scrollbars --window-size="${s#*=}" \
        --screenshot="$out/history-$label.png" "file://$out/index.html" 2>/dev/null
    compared="$(ls "$out"/history/compare-*.html | head -n 1)"
    # shellcheck disable=SC2086
    chromium $flags --hide-scrollbars --window-size="${s#*=}" \
        --screenshot="$out/history-compare-$label.png" "file://$compared" 2>/dev/null
done
# shellcheck disable=SC2086
chromium $flags --no-pdf-header-footer --print-to-pdf="$out/bs-qd-sweep.pdf" \
    "file://$run/report.html" 2>/dev/null
test "$(stat -c %s "$out/bs-qd-sweep.pdf")" -gt 10000
# 3. The layout at each width, measured in the page (layout-check.js): no sideways scrolling, nothing
#    cut at the right edge outside a scrolling box, no chart labels drawn over one another.
bad=0
for page in "$out"/*.html "$out"/history/*.html "$run/report.html" "$out/row-held/report.html" \
    "$out/detailed/report.html" "$out/sweep/report.html"; do
    [ -f "$page" ] || continue
    case "$page" in *.layout.html) continue ;; esac
    checked="${page%.html}.layout.html"
    for s in $sizes; do
        python3 - "$page" "$checked" crates/rigel-report/templates/html/layout-check.js "${s#*=}" <<'PY'
import html, sys
page, js = open(sys.argv[1]).read(), open(sys.argv[3]).read()
w, h = sys.argv[4].split(",")
at = page.rfind("</body>")
at = len(page) if at < 0 else at
page = page[:at] + "<script>\n" + js + "\n</script>\n" + page[at:]
open(sys.argv[2], "w").write(
    '<!doctype html><html><body style="margin:0">'
    f'<iframe style="width:{w}px;height:{h}px;border:0;display:block" srcdoc="{html.escape(page)}">'
    "</iframe></body></html>")
PY
        # shellcheck disable=SC2086
        verdict="$(chromium $flags --window-size="${s#*=}" --dump-dom "file://$checked" 2>/dev/null |
            python3 -c 'import sys, re, html
m = re.findall(r"<pre id=\"rigel-layout-check\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m[-1]) if m else "no verdict: the check did not run")')"
        if [ "$verdict" = OK ]; then
            echo "layout ok: ${page#"$out"/} at ${s%%=*} (${s#*=})"
        else
            echo "layout broken: ${page#"$out"/} at ${s%%=*} (${s#*=}):" >&2
            printf '%s\n' "$verdict" | sed 's/^/    /' >&2
            bad=1
        fi
    done
    rm -f "$checked"
done
[ "$bad" = 0 ] || { echo "the layout check found problems (above)" >&2; exit 1; }
# Each printed PDF as page images (look for charts cut at a page break).
if command -v pdftoppm >/dev/null; then
    for pdf in "$out"/*.pdf; do pdftoppm -r 50 -png "$pdf" "${pdf%.pdf}-page"; done
fi
echo "screenshots, PDFs and page images in $out"
