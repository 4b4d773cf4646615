//! The PDF's layout rules: nothing drawn below a page's content box, a table's header repeated on
//! every page it spans, a chart never split; and the file itself (fonts embedded, text kept).

use super::blocks::{self, Block};
use super::fonts::Fonts;
use super::layout::{Charts, Geometry, Layout, Op};
use super::{Info, Paper, document};

struct Fixed(f32, f32);
impl Charts for Fixed {
    fn find(&self, src: &str) -> Option<(usize, f32, f32)> {
        src.starts_with("chart-").then_some((0, self.0, self.1))
    }
}

fn long_doc() -> String {
    let mut md = String::from(
        "# Title\n\nIntro paragraph.\n\n## A table\n\n| Point | IOPS | p99 |\n|---|--:|--:|\n",
    );
    for i in 0..150 {
        md += &format!(
            "| point {i} with a long label | {} | 1.{i} ms |\n",
            1000 + i
        );
    }
    md += "\n## Charts\n\n";
    for i in 0..9 {
        md += &format!("![Chart {i}](chart-{i}.svg)\n\n");
    }
    md
}

fn ops_inside(pages: &[Vec<Op>], g: Geometry) {
    for (n, page) in pages.iter().enumerate() {
        for op in page {
            let (top, bottom) = match op {
                Op::Text { y, size, .. } => (y - size * 0.93, *y),
                Op::Rect { y, h, .. } | Op::Chart { y, h, .. } => (*y, y + h),
            };
            assert!(
                top >= g.top() - 0.5 && bottom <= g.bottom() + 0.5,
                "page {n}: {op:?} outside {}..{}",
                g.top(),
                g.bottom()
            );
        }
    }
}

#[test]
fn long_tables_and_charts_stay_inside_pages_and_tables_repeat_their_header() {
    let fonts = Fonts::load().unwrap();
    let g = Paper::A4.geometry();
    let pages = Layout::new(&fonts, g).run(&blocks::read(&long_doc()), &Fixed(760.0, 400.0));
    assert!(pages.len() >= 5, "{} pages", pages.len());
    ops_inside(&pages, g);
    // Every page holding table rows starts them with the header.
    for page in &pages {
        let texts: Vec<&str> = page
            .iter()
            .filter_map(|o| match o {
                Op::Text { text, .. } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        if let Some(first_row) = texts.iter().position(|t| t.starts_with("point ")) {
            assert!(
                texts[..first_row].contains(&"Point"),
                "a page of rows without the header: {:?}",
                &texts[..first_row.min(5)]
            );
        }
    }
    let charts = pages
        .iter()
        .flatten()
        .filter(|o| matches!(o, Op::Chart { .. }))
        .count();
    assert_eq!(charts, 9);
}

#[test]
fn a_heading_moves_to_the_page_of_what_follows_it() {
    let fonts = Fonts::load().unwrap();
    let g = Paper::Letter.geometry();
    let mut md = String::new();
    for i in 0..44 {
        md += &format!("Line {i} of filler text.\n\n");
    }
    md += "## Heading\n\n![c](chart-x.svg)\n";
    let pages = Layout::new(&fonts, g).run(&blocks::read(&md), &Fixed(760.0, 400.0));
    let page_of =
        |want: &dyn Fn(&Op) -> bool| pages.iter().position(|p| p.iter().any(want)).unwrap();
    let heading = page_of(&|o| matches!(o, Op::Text { text, .. } if text == "Heading"));
    let chart = page_of(&|o| matches!(o, Op::Chart { .. }));
    assert_eq!(heading, chart);
    ops_inside(&pages, g);
}

#[test]
fn a_word_wider_than_the_line_is_broken() {
    let fonts = Fonts::load().unwrap();
    let g = Paper::A4.geometry();
    let md = format!("`{}`\n", "0123456789abcdef".repeat(12));
    let pages = Layout::new(&fonts, g).run(&blocks::read(&md), &Fixed(1.0, 1.0));
    for op in pages.iter().flatten() {
        if let Op::Text {
            x,
            text,
            size,
            style,
            ..
        } = op
        {
            let w = fonts.face(*style).width(text, *size);
            assert!(
                x + w <= g.width - g.margin + 0.5,
                "{text} runs off the page"
            );
        }
    }
}

#[test]
fn the_pdf_embeds_its_fonts_and_keeps_its_text() {
    let svg = r##"<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100" font-family="sans-serif"><rect width="200" height="100" fill="#fff"/><text x="10" y="50">IOPS axis</text></svg>"##;
    let md = "# Handover\n\nMax IOPS **41,235 IOPS** at p99 1.2 ms.\n\n![c](chart-a.svg)\n";
    let info = Info {
        title: "t",
        creator: "rigel test",
    };
    let pdf = document(md, &[("chart-a.svg".into(), svg.into())], Paper::A4, info).unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let text = String::from_utf8_lossy(&pdf);
    assert!(text.contains("/FontFile2"), "no embedded TrueType font");
    assert!(text.contains("DejaVuSans"), "the font is not named");
    assert!(super::font_count() == 3);
    assert!(!matches!(blocks::read(md)[0], Block::PageBreak));
}
