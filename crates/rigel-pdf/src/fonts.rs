//! The fonts the PDF embeds (DejaVu Sans, Sans Bold and Sans Mono, from Debian's fonts-dejavu-core
//! 2.37; their licence is `fonts/LICENSE`) and their advance widths, which line breaking and table
//! widths measure with. krilla subsets each to the glyphs a document uses.

use super::blocks::Style;
use std::sync::Arc;

static REGULAR: &[u8] = include_bytes!("../fonts/DejaVuSans.ttf");
static BOLD: &[u8] = include_bytes!("../fonts/DejaVuSans-Bold.ttf");
static MONO: &[u8] = include_bytes!("../fonts/DejaVuSansMono.ttf");

/// One face: the PDF's font and its metrics.
pub struct Face {
    pub font: krilla::text::Font,
    /// Advance of each `char` below U+2400 in font units (others are measured on demand).
    advances: Vec<u16>,
    face_data: &'static [u8],
    upem: f32,
    pub ascent: f32,
}

pub struct Fonts {
    pub regular: Face,
    pub bold: Face,
    pub mono: Face,
}

impl Fonts {
    pub fn load() -> Option<Fonts> {
        Some(Fonts {
            regular: Face::load(REGULAR)?,
            bold: Face::load(BOLD)?,
            mono: Face::load(MONO)?,
        })
    }

    pub fn face(&self, style: Style) -> &Face {
        match style {
            Style::Regular => &self.regular,
            Style::Bold => &self.bold,
            Style::Mono => &self.mono,
        }
    }

    /// The font files, for the SVG charts' text (usvg's font database).
    pub fn data() -> [&'static [u8]; 3] {
        [REGULAR, BOLD, MONO]
    }
}

impl Face {
    fn load(data: &'static [u8]) -> Option<Face> {
        let face = ttf_parser::Face::parse(data, 0).ok()?;
        let advances = (0..0x2400u32)
            .map(|c| {
                char::from_u32(c)
                    .and_then(|c| face.glyph_index(c))
                    .and_then(|g| face.glyph_hor_advance(g))
                    .unwrap_or(0)
            })
            .collect();
        let upem = f32::from(face.units_per_em());
        let ascent = f32::from(face.ascender()) / upem;
        let bytes: Arc<dyn AsRef<[u8]> + Send + Sync> = Arc::new(data);
        Some(Face {
            font: krilla::text::Font::new(bytes.into(), 0)?,
            advances,
            face_data: data,
            upem,
            ascent,
        })
    }

    /// The width of `text` at `size` points.
    pub fn width(&self, text: &str, size: f32) -> f32 {
        let mut units = 0u32;
        let mut face = None;
        for c in text.chars() {
            let a = match self.advances.get(c as usize) {
                Some(&a) => a,
                None => {
                    let f =
                        face.get_or_insert_with(|| ttf_parser::Face::parse(self.face_data, 0).ok());
                    f.as_ref()
                        .and_then(|f| f.glyph_index(c).and_then(|g| f.glyph_hor_advance(g)))
                        .unwrap_or(0)
                }
            };
            units += u32::from(a);
        }
        units as f32 * size / self.upem
    }
}
