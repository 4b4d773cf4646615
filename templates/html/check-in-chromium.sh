#!/bin/sh
# Renders every results fixture (tests/fixtures/results-*.json) as HTML and screenshots it in headless
# chromium at a desktop and a phone width, so a person can look at the PNGs. Not part of `cargo test`
# (it needs chromium: `apt-get install -y chromium`); the test behind it skips when chromium is absent.
#
#   templates/html/check-in-chromium.sh [OUT_DIR]        (default: target/html-screenshots)
#   RIGEL_SCREENSHOT_SIZES="desktop=1280,3600 phone=390,7000" picks the window sizes.
set -eu
cd "$(dirname "$0")/../.."
out="${1:-${CARGO_TARGET_DIR:-target}/html-screenshots}"
mkdir -p "$out"
RIGEL_SCREENSHOT_DIR="$(cd "$out" && pwd)" \
    cargo test --lib report::tests::html_screenshots_in_chromium -- --ignored --nocapture
echo "screenshots and pages in $out"
