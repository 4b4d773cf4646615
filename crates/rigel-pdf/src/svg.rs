//! A chart's SVG (parsed by usvg) drawn on a PDF page as vectors: groups with their transform and
//! opacity, paths filled and stroked in flat colours, and text as real glyphs of the embedded
//! DejaVu faces (selectable, like the page's own text). That is all the charts (rigel-report's
//! `chart`) write. krilla-svg draws any SVG, but brings a raster renderer for filters and four
//! image decoders the charts never need: 2 MB of the binary. Gradients, patterns, clip paths,
//! masks, filters and images are not drawn.

use super::fonts::Fonts;
use krilla::color::rgb;
use krilla::geom::{PathBuilder, Point, Rect, Size, Transform};
use krilla::num::NormalizedF32;
use krilla::paint::{Fill, FillRule, LineCap, LineJoin, Stroke, StrokeDash};
use krilla::surface::Surface;
use krilla::text::{Font, GlyphId, KrillaGlyph};
use usvg::tiny_skia_path::PathSegment;

/// Draws `tree` scaled to `size` at the surface's current origin, clipped to its box.
pub fn draw(surface: &mut Surface, tree: &usvg::Tree, size: Size, fonts: &Fonts) {
    let view = tree.size();
    surface.push_transform(&Transform::from_scale(
        size.width() / view.width(),
        size.height() / view.height(),
    ));
    let mut clip = PathBuilder::new();
    if let Some(r) = Rect::from_xywh(0.0, 0.0, view.width(), view.height()) {
        clip.push_rect(r);
    }
    let clipped = clip
        .finish()
        .map(|clip| surface.push_clip_path(&clip, &FillRule::NonZero));
    let cx = Context { tree, fonts };
    group(surface, tree.root(), &cx);
    if clipped.is_some() {
        surface.pop();
    }
    surface.pop();
    surface.set_fill(None);
    surface.set_stroke(None);
}

struct Context<'a> {
    tree: &'a usvg::Tree,
    fonts: &'a Fonts,
}

fn transform(t: usvg::Transform) -> Transform {
    Transform::from_row(t.sx, t.ky, t.kx, t.sy, t.tx, t.ty)
}

fn group(surface: &mut Surface, g: &usvg::Group, cx: &Context) {
    surface.push_transform(&transform(g.transform()));
    let opacity = g.opacity().get();
    let faded = opacity < 1.0;
    if faded {
        surface.push_opacity(NormalizedF32::new(opacity).unwrap_or(NormalizedF32::ONE));
    }
    for child in g.children() {
        match child {
            usvg::Node::Group(g) => group(surface, g, cx),
            usvg::Node::Path(p) => path(surface, p),
            usvg::Node::Text(t) => text(surface, t, cx),
            usvg::Node::Image(_) => {}
        }
    }
    if faded {
        surface.pop();
    }
    surface.pop();
}

/// The flat colour of a paint (a gradient or pattern is drawn in none).
fn color(paint: &usvg::Paint) -> Option<rgb::Color> {
    match paint {
        usvg::Paint::Color(c) => Some(rgb::Color::new(c.red, c.green, c.blue)),
        _ => None,
    }
}

fn opacity(o: usvg::Opacity) -> NormalizedF32 {
    NormalizedF32::new(o.get()).unwrap_or(NormalizedF32::ONE)
}

fn fill(f: &usvg::Fill) -> Option<Fill> {
    Some(Fill {
        paint: color(f.paint())?.into(),
        opacity: opacity(f.opacity()),
        rule: match f.rule() {
            usvg::FillRule::NonZero => FillRule::NonZero,
            usvg::FillRule::EvenOdd => FillRule::EvenOdd,
        },
    })
}

fn stroke(s: &usvg::Stroke) -> Option<Stroke> {
    Some(Stroke {
        paint: color(s.paint())?.into(),
        width: s.width().get(),
        miter_limit: s.miterlimit().get(),
        line_cap: match s.linecap() {
            usvg::LineCap::Butt => LineCap::Butt,
            usvg::LineCap::Round => LineCap::Round,
            usvg::LineCap::Square => LineCap::Square,
        },
        line_join: match s.linejoin() {
            usvg::LineJoin::Miter | usvg::LineJoin::MiterClip => LineJoin::Miter,
            usvg::LineJoin::Round => LineJoin::Round,
            usvg::LineJoin::Bevel => LineJoin::Bevel,
        },
        opacity: opacity(s.opacity()),
        dash: s.dasharray().map(|array| StrokeDash {
            offset: s.dashoffset(),
            array: array.to_vec(),
        }),
    })
}

fn path(surface: &mut Surface, p: &usvg::Path) {
    if !p.is_visible() {
        return;
    }
    let (f, s) = (p.fill().and_then(fill), p.stroke().and_then(stroke));
    if f.is_none() && s.is_none() {
        return;
    }
    let mut pb = PathBuilder::new();
    for seg in p.data().segments() {
        match seg {
            PathSegment::MoveTo(a) => pb.move_to(a.x, a.y),
            PathSegment::LineTo(a) => pb.line_to(a.x, a.y),
            PathSegment::QuadTo(a, b) => pb.quad_to(a.x, a.y, b.x, b.y),
            PathSegment::CubicTo(a, b, c) => pb.cubic_to(a.x, a.y, b.x, b.y, c.x, c.y),
            PathSegment::Close => pb.close(),
        }
    }
    if let Some(built) = pb.finish() {
        // usvg's paint order: the fill under the stroke unless the SVG asked otherwise.
        let order = match p.paint_order() {
            usvg::PaintOrder::FillAndStroke => [(f, None), (None, s)],
            usvg::PaintOrder::StrokeAndFill => [(None, s), (f, None)],
        };
        for (f, s) in order {
            if f.is_some() || s.is_some() {
                surface.set_fill(f);
                surface.set_stroke(s);
                surface.draw_path(&built);
            }
        }
    }
}

/// The embedded face usvg picked for a glyph (the font database holds only DejaVu's three).
fn font(cx: &Context, id: usvg::fontdb::ID) -> Font {
    let name = cx
        .tree
        .fontdb()
        .face(id)
        .map(|f| f.post_script_name.as_str())
        .unwrap_or("");
    let face = if name.contains("Mono") {
        &cx.fonts.mono
    } else if name.contains("Bold") {
        &cx.fonts.bold
    } else {
        &cx.fonts.regular
    };
    face.font.clone()
}

fn text(surface: &mut Surface, t: &usvg::Text, cx: &Context) {
    for span in t.layouted() {
        if !span.visible {
            continue;
        }
        let Some(f) = span.fill.as_ref().and_then(fill) else {
            continue;
        };
        let size = span.font_size.get();
        for glyph in &span.positioned_glyphs {
            let font = font(cx, glyph.font);
            let upem = font.units_per_em();
            // The glyph's transform scales font units to the span's size; krilla scales by the
            // size itself, so only the position and any rotation are kept.
            let at = glyph
                .transform()
                .pre_concat(usvg::Transform::from_scale(upem / size, upem / size));
            surface.push_transform(&transform(at));
            surface.set_fill(Some(f.clone()));
            surface.set_stroke(None);
            surface.draw_glyphs(
                Point::from_xy(0.0, 0.0),
                &[KrillaGlyph::new(
                    GlyphId::new(u32::from(glyph.id.0)),
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0..glyph.text.len(),
                    None,
                )],
                font,
                &glyph.text,
                size,
                false,
            );
            surface.pop();
        }
    }
}
