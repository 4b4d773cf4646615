//! What can go wrong while making a PDF: the report crate wraps these as `ReportError::Pdf`.

/// A PDF that could not be made.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// The embedded fonts did not parse (a build that carries damaged font files).
    #[error("cannot read the built-in fonts")]
    Fonts,
    /// A chart's SVG that usvg cannot read.
    #[error("chart {name}: {source}")]
    Chart { name: String, source: usvg::Error },
    /// The paper's size, refused by the writer.
    #[error("bad page size")]
    PageSize,
    /// The writer's own failure (krilla's error has no message of its own, only its `Debug`).
    #[error("cannot write the PDF: {0:?}")]
    Write(krilla::error::KrillaError),
}
