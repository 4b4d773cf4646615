#!/bin/sh
# Renders every results fixture (tests/fixtures/results-*.json) as HTML and screenshots it in headless
# chromium at a desktop and a phone width and prints it to A4 PDF, so a person can look at the PNGs. Not part of `cargo test`
# (it needs chromium: `apt-get install -y chromium`); the test behind it skips when chromium is absent.
#
#   templates/html/check-in-chromium.sh [OUT_DIR]        (default: target/html-screenshots)
#   RIGEL_SCREENSHOT_SIZES="desktop=1280,3600 phone=390,7000" picks the window sizes.
set -eu
cd "$(dirname "$0")/../.."
command -v chromium >/dev/null || { apt-get update && apt-get install -y chromium poppler-utils; }
out="${1:-${CARGO_TARGET_DIR:-target}/html-screenshots}"
mkdir -p "$out"
RIGEL_SCREENSHOT_DIR="$(cd "$out" && pwd)" \
    cargo test --lib report::tests::html_screenshots_in_chromium -- --ignored --nocapture
# Each printed PDF as page images (look for charts cut at a page break).
if command -v pdftoppm >/dev/null; then
    for pdf in "$out"/*.pdf; do pdftoppm -r 50 -png "$pdf" "${pdf%.pdf}-page"; done
fi
echo "screenshots, PDFs and page images in $out"
