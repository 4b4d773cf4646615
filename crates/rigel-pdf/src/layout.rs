//! Pagination: the blocks placed on pages as a display list of text, rectangles and charts. A
//! chart and a table row are never split: what does not fit the rest of a page starts the next,
//! a table's header is repeated there, and a heading moves with the block that follows it.

use super::blocks::{Align, Block, Cell, Span, Style};
use super::fonts::Fonts;

pub type Rgb = [u8; 3];
const INK: Rgb = [0x1f, 0x29, 0x33];
const MUTED: Rgb = [0x52, 0x60, 0x6d];
const ACCENT: Rgb = [0x10, 0x2a, 0x43];
const LINE: Rgb = [0xd9, 0xe2, 0xec];
const SHADE: Rgb = [0xf0, 0xf4, 0xf8];

const BODY: f32 = 9.5;
const TABLE: f32 = 8.0;
const TABLE_MIN: f32 = 6.0;
const CODE: f32 = 7.5;
const PAD_X: f32 = 3.5;
const PAD_Y: f32 = 2.2;

/// One thing drawn, in points from the page's top left (`y` of text is its baseline).
#[derive(Clone, Debug, PartialEq)]
pub enum Op {
    Text {
        x: f32,
        y: f32,
        style: Style,
        size: f32,
        text: String,
        color: Rgb,
    },
    Rect {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        color: Rgb,
    },
    /// Chart `index` (of the charts given) drawn into this box.
    Chart {
        x: f32,
        y: f32,
        w: f32,
        h: f32,
        index: usize,
    },
}

/// The page's size and the box content goes in.
#[derive(Clone, Copy, Debug)]
pub struct Geometry {
    pub width: f32,
    pub height: f32,
    pub margin: f32,
}

impl Geometry {
    pub fn left(&self) -> f32 {
        self.margin
    }
    pub fn top(&self) -> f32 {
        self.margin
    }
    /// Content ends here; the footer is below.
    pub fn bottom(&self) -> f32 {
        self.height - self.margin
    }
    pub fn content_width(&self) -> f32 {
        self.width - 2.0 * self.margin
    }
}

/// What a chart is: its natural size (SVG user units), looked up by its file name.
pub trait Charts {
    fn find(&self, src: &str) -> Option<(usize, f32, f32)>;
}

pub struct Layout<'a> {
    fonts: &'a Fonts,
    g: Geometry,
    pub pages: Vec<Vec<Op>>,
    y: f32,
}

/// A line of text: runs of one style at their x offset.
type Line = Vec<(f32, Style, String)>;

impl<'a> Layout<'a> {
    pub fn new(fonts: &'a Fonts, g: Geometry) -> Self {
        Layout {
            fonts,
            g,
            pages: vec![Vec::new()],
            y: g.top(),
        }
    }

    pub fn run(mut self, blocks: &[Block], charts: &dyn Charts) -> Vec<Vec<Op>> {
        let mut skip = 0;
        for (i, b) in blocks.iter().enumerate() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            match b {
                Block::Heading { level, spans } => {
                    let next = self.kept_with_heading(&blocks[i + 1..], charts);
                    self.heading(*level, spans, next);
                }
                Block::Para {
                    spans,
                    bullet,
                    depth,
                    quote,
                } => self.para(spans, bullet.as_deref(), *depth, *quote),
                Block::Code(text) => self.code(text),
                Block::Table { head, rows, align } => self.table(head, rows, align),
                Block::Image { src, alt, .. } => {
                    // Images of one paragraph go two to a row (a page's charts side by side).
                    let row: Vec<(&str, &str)> = std::iter::once((src.as_str(), alt.as_str()))
                        .chain(blocks[i + 1..].iter().map_while(|n| match n {
                            Block::Image {
                                src,
                                alt,
                                beside: true,
                            } => Some((src.as_str(), alt.as_str())),
                            _ => None,
                        }))
                        .collect();
                    if row.len() == 1 {
                        self.image(src, alt, charts);
                    } else {
                        skip = row.len() - 1;
                        self.image_rows(&row, charts);
                    }
                }
                Block::Rule => {
                    self.ensure(8.0);
                    let (x, w) = (self.g.left(), self.g.content_width());
                    self.rect(x, self.y + 3.0, w, 0.6, LINE);
                    self.y += 8.0;
                }
                Block::PageBreak => {
                    if !self.page_empty() {
                        self.new_page();
                    }
                }
            }
        }
        if self.pages.len() > 1 && self.page_empty() {
            self.pages.pop();
        }
        self.pages
    }

    fn page_empty(&self) -> bool {
        self.pages.last().is_none_or(|p| p.is_empty())
    }

    fn new_page(&mut self) {
        self.pages.push(Vec::new());
        self.y = self.g.top();
    }

    /// Starts a new page unless `h` fits below (or the page is empty: nothing fits better).
    fn ensure(&mut self, h: f32) {
        if self.y + h > self.g.bottom() && !self.page_empty() {
            self.new_page();
        }
    }

    fn op(&mut self, op: Op) {
        if let Some(p) = self.pages.last_mut() {
            p.push(op);
        }
    }

    fn rect(&mut self, x: f32, y: f32, w: f32, h: f32, color: Rgb) {
        self.op(Op::Rect { x, y, w, h, color });
    }

    fn draw_line(&mut self, line: &Line, x: f32, baseline: f32, size: f32, color: Rgb) {
        for (dx, style, text) in line {
            self.op(Op::Text {
                x: x + dx,
                y: baseline,
                style: *style,
                size,
                text: text.clone(),
                color,
            });
        }
    }

    /// How much of what follows a heading stays on its page: the next block's least height, and
    /// when that is a short paragraph (a table's or a chart's one-line lead), the block after it
    /// too, so that no page ends on a heading and its lead.
    fn kept_with_heading(&self, after: &[Block], charts: &dyn Charts) -> f32 {
        let first = after.first().map_or(0.0, |n| self.min_height(n, charts));
        let short = |spans: &[Span]| spans.iter().map(|s| s.text.len()).sum::<usize>() < 400;
        match after {
            // A sub-heading after the lead: kept with its own first block too.
            [Block::Para { spans, .. }, Block::Heading { .. }, then, ..] if short(spans) => {
                first + BODY * 1.4 + 3.0 * BODY + self.min_height(then, charts)
            }
            [Block::Para { spans, .. }, then, ..]
                if short(spans) && !matches!(then, Block::Heading { .. }) =>
            {
                first + BODY * 1.4 + self.min_height(then, charts)
            }
            _ => first,
        }
    }

    /// The least height `b` needs on a page: a heading is kept with that much of what follows.
    fn min_height(&self, b: &Block, charts: &dyn Charts) -> f32 {
        match b {
            Block::Para { .. } => 2.0 * BODY * 1.4,
            Block::Code(_) => 3.0 * CODE * 1.3,
            Block::Table { head, rows, align } => {
                let t = self.table_plan(head, rows, align);
                t.head_h + t.rows_h.first().copied().unwrap_or(0.0)
            }
            Block::Image { src, .. } => charts
                .find(src)
                .map_or(0.0, |(_, w, h)| self.chart_box(w, h).1 + 6.0),
            _ => 0.0,
        }
    }

    fn heading(&mut self, level: u8, spans: &[Span], next: f32) {
        let size = match level {
            1 => 18.0,
            2 => 14.0,
            3 => 11.5,
            _ => 10.0,
        };
        let before = if level <= 2 { size * 0.9 } else { size * 0.6 };
        let width = self.g.content_width();
        let bold: Vec<Span> = spans
            .iter()
            .map(|s| Span {
                text: s.text.clone(),
                style: if s.style == Style::Mono {
                    Style::Mono
                } else {
                    Style::Bold
                },
            })
            .collect();
        let lines = self.wrap(&bold, width, size);
        let lh = size * 1.25;
        let h = lines.len() as f32 * lh + size * 0.5;
        let at_top = self.page_empty();
        self.ensure(before + h + next);
        if !at_top && !self.page_empty() {
            self.y += before;
        }
        for line in &lines {
            let base = self.y + size * self.fonts.bold.ascent;
            self.draw_line(line, self.g.left(), base, size, ACCENT);
            self.y += lh;
        }
        if level <= 2 {
            let (x, w) = (self.g.left(), self.g.content_width());
            self.rect(x, self.y + 1.0, w, if level == 1 { 1.2 } else { 0.6 }, LINE);
        }
        self.y += size * 0.5;
    }

    fn para(&mut self, spans: &[Span], bullet: Option<&str>, depth: u8, quote: bool) {
        let indent = 13.0 * f32::from(depth) + if quote { 10.0 } else { 0.0 };
        let x = self.g.left() + indent;
        let width = self.g.content_width() - indent;
        let lines = self.wrap(spans, width, BODY);
        let lh = BODY * 1.4;
        for (i, line) in lines.iter().enumerate() {
            self.ensure(lh);
            let base = self.y + BODY * self.fonts.regular.ascent;
            if i == 0
                && let Some(b) = bullet
            {
                let bw = self.fonts.regular.width(b, BODY);
                self.op(Op::Text {
                    x: x - bw - 4.0,
                    y: base,
                    style: Style::Regular,
                    size: BODY,
                    text: b.to_owned(),
                    color: INK,
                });
            }
            if quote {
                self.rect(x - 8.0, self.y, 2.0, lh, LINE);
            }
            self.draw_line(line, x, base, BODY, INK);
            self.y += lh;
        }
        self.y += BODY * 0.5;
    }

    fn code(&mut self, text: &str) {
        let face = &self.fonts.mono;
        let char_w = face.width("0", CODE).max(0.1);
        let width = self.g.content_width() - 2.0 * PAD_X;
        let per_line = ((width / char_w).floor() as usize).max(8);
        let lh = CODE * 1.3;
        let mut rows = Vec::new();
        for l in text.lines() {
            let chars: Vec<char> = l.chars().collect();
            if chars.is_empty() {
                rows.push(String::new());
            }
            for piece in chars.chunks(per_line) {
                rows.push(piece.iter().collect::<String>());
            }
        }
        self.y += 2.0;
        for row in rows {
            self.ensure(lh);
            let (x, w) = (self.g.left(), self.g.content_width());
            self.rect(x, self.y, w, lh, SHADE);
            if !row.is_empty() {
                let base = self.y + CODE * face.ascent + 0.6;
                self.op(Op::Text {
                    x: x + PAD_X,
                    y: base,
                    style: Style::Mono,
                    size: CODE,
                    text: row,
                    color: INK,
                });
            }
            self.y += lh;
        }
        self.y += BODY * 0.6;
    }

    /// A chart's box at `w` × `h` user units: the content width (never wider than natural size
    /// at 0.75 pt per px), and at most 60% of the page's height.
    fn chart_box(&self, w: f32, h: f32) -> (f32, f32) {
        let max_h = (self.g.bottom() - self.g.top()) * 0.6;
        let s = (self.g.content_width() / w).min(max_h / h).min(0.75);
        (w * s, h * s)
    }

    fn image(&mut self, src: &str, alt: &str, charts: &dyn Charts) {
        let Some((index, w, h)) = charts.find(src) else {
            // Not one of the run's charts: its text stands in for it.
            self.para(
                &[Span {
                    text: format!("[{alt}: {src}]"),
                    style: Style::Regular,
                }],
                None,
                0,
                false,
            );
            return;
        };
        let (bw, bh) = self.chart_box(w, h);
        self.ensure(bh + 6.0);
        let x = self.g.left() + (self.g.content_width() - bw) / 2.0;
        self.op(Op::Chart {
            x,
            y: self.y,
            w: bw,
            h: bh,
            index,
        });
        self.y += bh + 10.0;
    }

    /// Charts two to a row, each in half the content width, each row kept on one page; a chart
    /// that is not one of the run's is drawn as its text, alone.
    fn image_rows(&mut self, images: &[(&str, &str)], charts: &dyn Charts) {
        const GAP: f32 = 8.0;
        let half = (self.g.content_width() - GAP) / 2.0;
        let max_h = (self.g.bottom() - self.g.top()) * 0.6;
        for pair in images.chunks(2) {
            let found: Vec<_> = pair.iter().map(|(src, _)| charts.find(src)).collect();
            if found.iter().any(Option::is_none) {
                for (src, alt) in pair {
                    self.image(src, alt, charts);
                }
                continue;
            }
            let boxes: Vec<(usize, f32, f32)> = found
                .into_iter()
                .flatten()
                .map(|(index, w, h)| {
                    let s = (half / w).min(max_h / h).min(0.75);
                    (index, w * s, h * s)
                })
                .collect();
            let row_h = boxes.iter().map(|b| b.2).fold(0.0, f32::max);
            self.ensure(row_h + 6.0);
            for (k, (index, w, h)) in boxes.into_iter().enumerate() {
                let x = self.g.left() + k as f32 * (half + GAP) + (half - w) / 2.0;
                self.op(Op::Chart {
                    x,
                    y: self.y,
                    w,
                    h,
                    index,
                });
            }
            self.y += row_h + 10.0;
        }
    }

    /// Greedy line breaking of `spans` into lines at most `width` wide; a word wider than a line
    /// is broken between characters, `\n` breaks the line.
    fn wrap(&self, spans: &[Span], width: f32, size: f32) -> Vec<Line> {
        let mut lines: Vec<Line> = vec![Vec::new()];
        let mut x = 0.0f32;
        let mut gap = false;
        for span in spans {
            let face = self.fonts.face(span.style);
            let space = face.width(" ", size);
            for (n, hard) in span.text.split('\n').enumerate() {
                if n > 0 {
                    lines.push(Vec::new());
                    x = 0.0;
                    gap = false;
                }
                let starts_with_space = hard.starts_with(char::is_whitespace);
                for (k, word) in hard.split_whitespace().enumerate() {
                    let sep = (k > 0 || starts_with_space || gap) && x > 0.0;
                    let mut w = face.width(word, size);
                    let lead = if sep { space } else { 0.0 };
                    if x + lead + w > width && x > 0.0 {
                        lines.push(Vec::new());
                        x = 0.0;
                    } else if sep {
                        push_run(lines.last_mut(), x, span.style, " ");
                        x += space;
                    }
                    let mut rest = word.to_owned();
                    while w > width && rest.chars().count() > 1 {
                        let mut cut = String::new();
                        for c in rest.chars() {
                            let mut t = cut.clone();
                            t.push(c);
                            if face.width(&t, size) > width - x && !cut.is_empty() {
                                break;
                            }
                            cut = t;
                        }
                        push_run(lines.last_mut(), x, span.style, &cut);
                        rest = rest[cut.len()..].to_owned();
                        lines.push(Vec::new());
                        x = 0.0;
                        w = face.width(&rest, size);
                    }
                    push_run(lines.last_mut(), x, span.style, &rest);
                    x += w;
                }
                gap = hard.ends_with(char::is_whitespace);
            }
        }
        lines
    }
}

/// Appends `text` to the line: to its last run when that has the same style and ends where this
/// starts (one text run per style keeps the text whole for a reader that extracts it).
fn push_run(line: Option<&mut Line>, x: f32, style: Style, text: &str) {
    let Some(line) = line else { return };
    match line.last_mut() {
        Some((_, s, t)) if *s == style => t.push_str(text),
        _ => line.push((x, style, text.to_owned())),
    }
}

/// A table's font size, column widths, and each row's height.
struct TablePlan {
    size: f32,
    widths: Vec<f32>,
    head_h: f32,
    rows_h: Vec<f32>,
}

impl Layout<'_> {
    fn cell_width(&self, cell: &Cell, size: f32, bold: bool) -> f32 {
        cell.iter()
            .map(|s| {
                let style = if bold && s.style == Style::Regular {
                    Style::Bold
                } else {
                    s.style
                };
                self.fonts.face(style).width(&s.text, size)
            })
            .sum()
    }

    /// The widest word of a cell: a column is never narrower (where the page allows).
    fn cell_min(&self, cell: &Cell, size: f32, bold: bool) -> f32 {
        cell.iter()
            .flat_map(|s| {
                let style = if bold && s.style == Style::Regular {
                    Style::Bold
                } else {
                    s.style
                };
                s.text
                    .split_whitespace()
                    .map(move |w| self.fonts.face(style).width(w, size))
            })
            .fold(0.0, f32::max)
    }

    fn table_plan(&self, head: &[Cell], rows: &[Vec<Cell>], _align: &[Align]) -> TablePlan {
        let cols = head
            .len()
            .max(rows.iter().map(Vec::len).max().unwrap_or(0))
            .max(1);
        let avail = self.g.content_width();
        let measure = |size: f32, f: &dyn Fn(&Cell, f32, bool) -> f32| -> Vec<f32> {
            (0..cols)
                .map(|c| {
                    let h = head.get(c).map_or(0.0, |cell| f(cell, size, true));
                    rows.iter()
                        .filter_map(|r| r.get(c))
                        .map(|cell| f(cell, size, false))
                        .fold(h, f32::max)
                        + 2.0 * PAD_X
                })
                .collect()
        };
        // The largest size at which every column fits unwrapped, else the largest at which
        // every column's widest word fits, else the smallest.
        let mut size = TABLE;
        let mut natural = measure(size, &|c, s, b| self.cell_width(c, s, b));
        while natural.iter().sum::<f32>() > avail && size > TABLE_MIN {
            let mins = measure(size, &|c, s, b| self.cell_min(c, s, b));
            if mins.iter().sum::<f32>() <= avail && size <= TABLE - 1.0 {
                break;
            }
            size -= 0.5;
            natural = measure(size, &|c, s, b| self.cell_width(c, s, b));
        }
        let widths = if natural.iter().sum::<f32>() <= avail {
            natural
        } else {
            // Narrow columns keep their width; the wide ones share the rest by their width.
            let fair = avail / cols as f32;
            let fixed: f32 = natural.iter().filter(|w| **w <= fair).sum();
            let wide: f32 = natural.iter().filter(|w| **w > fair).sum();
            natural
                .iter()
                .map(|&w| {
                    if w <= fair {
                        w
                    } else {
                        (avail - fixed) * w / wide
                    }
                })
                .collect()
        };
        let lh = size * 1.3;
        let height = |cells: &[Cell], bold: bool| -> f32 {
            let lines = cells
                .iter()
                .enumerate()
                .map(|(c, cell)| {
                    self.wrap(&styled(cell, bold), widths[c] - 2.0 * PAD_X, size)
                        .len()
                })
                .max()
                .unwrap_or(1)
                .max(1);
            lines as f32 * lh + 2.0 * PAD_Y
        };
        TablePlan {
            size,
            head_h: if head.is_empty() {
                0.0
            } else {
                height(head, true)
            },
            rows_h: rows.iter().map(|r| height(r, false)).collect(),
            widths,
        }
    }

    fn table(&mut self, head: &[Cell], rows: &[Vec<Cell>], align: &[Align]) {
        let plan = self.table_plan(head, rows, align);
        self.y += 2.0;
        self.ensure(plan.head_h + plan.rows_h.first().copied().unwrap_or(0.0));
        self.table_row(head, &plan, plan.head_h, align, true);
        for (r, row) in rows.iter().enumerate() {
            let h = plan.rows_h[r];
            if self.y + h > self.g.bottom() && !self.page_empty() {
                self.new_page();
                self.table_row(head, &plan, plan.head_h, align, true);
            }
            self.table_row(row, &plan, h, align, false);
        }
        self.y += BODY * 0.8;
    }

    fn table_row(&mut self, cells: &[Cell], plan: &TablePlan, h: f32, align: &[Align], head: bool) {
        if cells.is_empty() {
            return;
        }
        let x0 = self.g.left();
        let total: f32 = plan.widths.iter().sum();
        if head {
            self.rect(x0, self.y, total, h, SHADE);
        }
        let size = plan.size;
        let lh = size * 1.3;
        let mut x = x0;
        for (c, w) in plan.widths.iter().enumerate() {
            if let Some(cell) = cells.get(c) {
                let spans = styled(cell, head);
                let lines = self.wrap(&spans, w - 2.0 * PAD_X, size);
                for (i, line) in lines.iter().enumerate() {
                    let lw = line
                        .last()
                        .map_or(0.0, |(dx, s, t)| dx + self.fonts.face(*s).width(t, size));
                    let dx = match align.get(c).copied().unwrap_or(Align::Left) {
                        Align::Left => PAD_X,
                        Align::Right => w - PAD_X - lw,
                        Align::Center => (w - lw) / 2.0,
                    };
                    let base = self.y + PAD_Y + i as f32 * lh + size * self.fonts.regular.ascent;
                    let color = if head { MUTED } else { INK };
                    self.draw_line(line, x + dx, base, size, color);
                }
            }
            x += w;
        }
        self.rect(x0, self.y + h - 0.4, total, 0.4, LINE);
        self.y += h;
    }
}

/// A cell's spans, bold in a header row.
fn styled(cell: &Cell, bold: bool) -> Vec<Span> {
    cell.iter()
        .map(|s| Span {
            text: s.text.clone(),
            style: if bold && s.style == Style::Regular {
                Style::Bold
            } else {
                s.style
            },
        })
        .collect()
}
