//! The PDF writer, made without a browser: Markdown (rigel-report renders it from the same
//! `markdown/report.md`, or a user's Markdown template) read into blocks (`blocks`), paginated
//! on A4 or Letter (`layout`) and written by krilla with the DejaVu fonts embedded (`fonts`), its
//! text selectable, and the SVG charts drawn as vectors (`svg`). A leaf: it knows nothing of
//! rigel's results, only Markdown, SVG and paper; its heavy dependencies stay out of the report
//! crate's build and its fonts live in this crate's `fonts/`.

#![forbid(unsafe_code)]

mod blocks;
mod error;
mod fonts;
mod layout;
mod svg;
#[cfg(test)]
mod tests;

pub use error::PdfError;
use fonts::Fonts;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::metadata::Metadata;
use krilla::page::PageSettings;
use krilla::paint::Fill;
use krilla::text::TextDirection;
use krilla::{Document, surface::Surface};
use layout::{Geometry, Layout, Op, Rgb};

/// The PDF's paper.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Paper {
    /// 210 × 297 mm.
    #[default]
    A4,
    /// 8.5 × 11 in.
    Letter,
}

impl Paper {
    fn geometry(self) -> Geometry {
        let (width, height) = match self {
            Paper::A4 => (595.28, 841.89),
            Paper::Letter => (612.0, 792.0),
        };
        Geometry {
            width,
            height,
            margin: 48.0,
        }
    }
}

impl std::str::FromStr for Paper {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.to_ascii_lowercase().as_str() {
            "a4" => Ok(Paper::A4),
            "letter" => Ok(Paper::Letter),
            _ => Err(format!("unknown paper {s:?}; expected a4 or letter")),
        }
    }
}

/// The charts a document may show: file name (as the Markdown links it) and SVG text.
struct ChartTrees {
    trees: Vec<(String, usvg::Tree)>,
}

impl layout::Charts for ChartTrees {
    fn find(&self, src: &str) -> Option<(usize, f32, f32)> {
        let i = self.trees.iter().position(|(name, _)| name == src)?;
        let size = self.trees[i].1.size();
        Some((i, size.width(), size.height()))
    }
}

/// What the PDF says of itself: its metadata, and the title its footers repeat.
#[derive(Clone, Copy, Debug)]
pub struct Info<'a> {
    /// The document's title (metadata and every page's footer).
    pub title: &'a str,
    /// The program that made it (the metadata's creator), e.g. `rigel 0.1.0`.
    pub creator: &'a str,
}

/// The PDF of `markdown`, its images found among `charts` (file name, SVG), with `info` in its
/// metadata and its title in the footers.
pub fn document(
    markdown: &str,
    charts: &[(String, String)],
    paper: Paper,
    info: Info,
) -> Result<Vec<u8>, PdfError> {
    let title = info.title;
    let fonts = Fonts::load().ok_or(PdfError::Fonts)?;
    let mut options = usvg::Options {
        font_family: "DejaVu Sans".into(),
        ..Default::default()
    };
    {
        let db = options.fontdb_mut();
        for data in Fonts::data() {
            db.load_font_data(data.to_vec());
        }
        db.set_sans_serif_family("DejaVu Sans");
        db.set_monospace_family("DejaVu Sans Mono");
    }
    let trees = charts
        .iter()
        .map(|(name, svg)| {
            usvg::Tree::from_str(svg, &options)
                .map(|t| (name.clone(), t))
                .map_err(|source| PdfError::Chart {
                    name: name.clone(),
                    source,
                })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let charts = ChartTrees { trees };
    let g = paper.geometry();
    let pages = Layout::new(&fonts, g).run(&blocks::read(markdown), &charts);
    let mut doc = Document::new();
    doc.set_metadata(
        Metadata::new()
            .title(title.to_owned())
            .creator(info.creator.to_owned()),
    );
    let n = pages.len();
    for (i, ops) in pages.iter().enumerate() {
        let settings = PageSettings::from_wh(g.width, g.height).ok_or(PdfError::PageSize)?;
        let mut page = doc.start_page_with(settings);
        let mut surface = page.surface();
        for op in ops {
            draw(&mut surface, &fonts, &charts, op);
        }
        let footer = format!("{title} · page {} of {n}", i + 1);
        let w = fonts.regular.width(&footer, 7.5);
        draw(
            &mut surface,
            &fonts,
            &charts,
            &Op::Text {
                x: (g.width - w) / 2.0,
                y: g.height - g.margin / 2.0,
                style: blocks::Style::Regular,
                size: 7.5,
                text: footer,
                color: [0x7b, 0x87, 0x94],
            },
        );
        surface.finish();
        page.finish();
    }
    doc.finish().map_err(PdfError::Write)
}

fn fill(color: Rgb) -> Fill {
    Fill {
        paint: rgb::Color::new(color[0], color[1], color[2]).into(),
        ..Default::default()
    }
}

fn draw(surface: &mut Surface, fonts: &Fonts, charts: &ChartTrees, op: &Op) {
    match op {
        Op::Text {
            x,
            y,
            style,
            size,
            text,
            color,
        } => {
            surface.set_fill(Some(fill(*color)));
            surface.draw_text(
                Point::from_xy(*x, *y),
                fonts.face(*style).font.clone(),
                *size,
                text,
                false,
                TextDirection::Auto,
            );
        }
        Op::Rect { x, y, w, h, color } => {
            let mut pb = PathBuilder::new();
            if let Some(r) = Rect::from_xywh(*x, *y, *w, *h) {
                pb.push_rect(r);
            }
            if let Some(path) = pb.finish() {
                surface.set_fill(Some(fill(*color)));
                surface.draw_path(&path);
            }
        }
        Op::Chart { x, y, w, h, index } => {
            if let (Some((_, tree)), Some(size)) = (charts.trees.get(*index), Size::from_wh(*w, *h))
            {
                surface.push_transform(&Transform::from_translate(*x, *y));
                svg::draw(surface, tree, size, fonts);
                surface.pop();
            }
        }
    }
}

/// The fonts' files, for a test that checks the PDF embeds them.
#[cfg(test)]
pub(crate) fn font_count() -> usize {
    Fonts::data().len()
}
