#!/usr/bin/env bash
# The embedded fonts are DejaVu 2.37 (Debian's fonts-dejavu-core) cut to the characters a report
# can hold: Latin (with its extensions), Greek, Cyrillic, punctuation, sub- and superscripts,
# currency, letter-like symbols, arrows, mathematical operators, technical symbols, box drawing,
# block elements, geometric shapes and check marks. The full files are 1.8 MB, these 0.66 MB: the
# binary carries them. Hinting and OpenType layout (kerning) are kept. A character outside these
# ranges prints as DejaVu's missing-glyph box. Run from this folder:
#   pip install fonttools && bash subset.sh /usr/share/fonts/truetype/dejavu
set -euo pipefail
src=${1:?the folder of the full DejaVu fonts (fonts-dejavu-core)}
ranges="U+0020-007E,U+00A0-036F,U+0370-03FF,U+0400-04FF,U+1E00-1EFF,U+2000-206F,U+2070-209F"
ranges+=",U+20A0-20CF,U+2100-218F,U+2190-21FF,U+2200-22FF,U+2300-23FF,U+2500-25FF,U+2713-2717,U+FFFD"
for f in DejaVuSans DejaVuSans-Bold DejaVuSansMono; do
  pyftsubset "$src/$f.ttf" --unicodes="$ranges" --layout-features='*' --name-IDs='*' \
    --name-languages='*' --notdef-outline --output-file="$f.ttf"
done
