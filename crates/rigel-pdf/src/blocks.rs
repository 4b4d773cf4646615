//! The Markdown a template rendered, read into the blocks the PDF lays out: headings, paragraphs
//! (list items and quotes among them), code, tables, charts and page breaks. `<!-- page -->` on
//! a line of its own starts a new page; an image names a chart by its file.

use pulldown_cmark::{Alignment, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Style {
    Regular,
    Bold,
    Mono,
}

/// A run of text in one style.
#[derive(Clone, Debug, PartialEq)]
pub struct Span {
    pub text: String,
    pub style: Style,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
    Center,
}

pub type Cell = Vec<Span>;

#[derive(Clone, Debug, PartialEq)]
pub enum Block {
    Heading {
        level: u8,
        spans: Vec<Span>,
    },
    Para {
        spans: Vec<Span>,
        /// A list item's bullet (`•`, `3.`), drawn in the indent.
        bullet: Option<String>,
        /// List nesting (0: none).
        depth: u8,
        quote: bool,
    },
    Code(String),
    Table {
        head: Vec<Cell>,
        rows: Vec<Vec<Cell>>,
        align: Vec<Align>,
    },
    Image {
        src: String,
        alt: String,
        /// In the same paragraph as the image before it: the two share a row on the page.
        beside: bool,
    },
    Rule,
    PageBreak,
}

/// What the reader is inside of.
#[derive(Default)]
struct State {
    blocks: Vec<Block>,
    spans: Vec<Span>,
    bold: u32,
    code: Option<String>,
    /// Each open list's next number (none: bullets).
    lists: Vec<Option<u64>>,
    bullet: Option<String>,
    quote: u32,
    table: Option<TableState>,
    image: Option<(String, String)>,
    /// Images finished in the open paragraph so far.
    para_images: u32,
}

#[derive(Default)]
struct TableState {
    align: Vec<Align>,
    head: Vec<Cell>,
    rows: Vec<Vec<Cell>>,
    row: Vec<Cell>,
    in_head: bool,
}

pub fn read(markdown: &str) -> Vec<Block> {
    let mut s = State::default();
    for event in Parser::new_ext(markdown, Options::ENABLE_TABLES) {
        s.event(event);
    }
    s.flush_para();
    s.blocks
}

impl State {
    fn style(&self) -> Style {
        if self.bold > 0 {
            Style::Bold
        } else {
            Style::Regular
        }
    }

    fn push(&mut self, text: &str, style: Style) {
        if let Some((_, alt)) = &mut self.image {
            alt.push_str(text);
            return;
        }
        match self.spans.last_mut() {
            Some(last) if last.style == style => last.text.push_str(text),
            _ => self.spans.push(Span {
                text: text.to_owned(),
                style,
            }),
        }
    }

    /// The spans so far as a paragraph (a list item's first with its bullet).
    fn flush_para(&mut self) {
        let spans = std::mem::take(&mut self.spans);
        if spans.iter().all(|s| s.text.trim().is_empty()) {
            return;
        }
        self.blocks.push(Block::Para {
            spans,
            bullet: self.bullet.take(),
            depth: self.lists.len() as u8,
            quote: self.quote > 0,
        });
    }

    fn event(&mut self, event: Event) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => match &mut self.code {
                Some(code) => code.push_str(&t),
                None => self.push(&t, self.style()),
            },
            Event::Code(t) => self.push(&t, Style::Mono),
            Event::SoftBreak => self.push(" ", self.style()),
            Event::HardBreak => self.push("\n", self.style()),
            Event::Html(h) | Event::InlineHtml(h) if h.contains("<!-- page -->") => {
                self.flush_para();
                self.blocks.push(Block::PageBreak);
            }
            Event::Rule => {
                self.flush_para();
                self.blocks.push(Block::Rule);
            }
            _ => {}
        }
    }

    fn start(&mut self, tag: Tag) {
        match tag {
            Tag::Heading { .. } | Tag::Paragraph | Tag::BlockQuote(_) => {
                if self.table.is_none() {
                    self.flush_para();
                }
                if matches!(tag, Tag::BlockQuote(_)) {
                    self.quote += 1;
                }
            }
            Tag::List(start) => {
                self.flush_para();
                self.lists.push(start);
            }
            Tag::Item => {
                self.flush_para();
                self.bullet = Some(match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}.", *n - 1)
                    }
                    _ => "•".to_owned(),
                });
            }
            Tag::CodeBlock(_) => {
                self.flush_para();
                self.code = Some(String::new());
            }
            Tag::Strong => self.bold += 1,
            Tag::Table(align) => {
                self.flush_para();
                self.table = Some(TableState {
                    align: align
                        .iter()
                        .map(|a| match a {
                            Alignment::Right => Align::Right,
                            Alignment::Center => Align::Center,
                            _ => Align::Left,
                        })
                        .collect(),
                    ..Default::default()
                });
            }
            Tag::TableHead => {
                if let Some(t) = &mut self.table {
                    t.in_head = true;
                }
            }
            Tag::TableRow | Tag::TableCell => self.spans.clear(),
            Tag::Image { dest_url, .. } => {
                if self.table.is_none() {
                    self.flush_para();
                }
                self.image = Some((dest_url.to_string(), String::new()));
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Heading(level) => {
                let spans = std::mem::take(&mut self.spans);
                let level = match level {
                    HeadingLevel::H1 => 1,
                    HeadingLevel::H2 => 2,
                    HeadingLevel::H3 => 3,
                    _ => 4,
                };
                self.blocks.push(Block::Heading { level, spans });
            }
            TagEnd::Paragraph | TagEnd::Item => {
                self.para_images = 0;
                if self.table.is_none() {
                    self.flush_para();
                }
                if tag == TagEnd::Item {
                    self.bullet = None;
                }
            }
            TagEnd::BlockQuote(_) => {
                self.flush_para();
                self.quote = self.quote.saturating_sub(1);
            }
            TagEnd::List(_) => {
                self.flush_para();
                self.lists.pop();
            }
            TagEnd::CodeBlock => {
                if let Some(code) = self.code.take() {
                    self.blocks.push(Block::Code(code.trim_end().to_owned()));
                }
            }
            TagEnd::Strong => self.bold = self.bold.saturating_sub(1),
            TagEnd::TableCell => {
                let cell = std::mem::take(&mut self.spans);
                if let Some(t) = &mut self.table {
                    t.row.push(cell);
                }
            }
            TagEnd::TableHead => {
                if let Some(t) = &mut self.table {
                    t.head = std::mem::take(&mut t.row);
                    t.in_head = false;
                }
            }
            TagEnd::TableRow => {
                if let Some(t) = &mut self.table {
                    let row = std::mem::take(&mut t.row);
                    t.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(t) = self.table.take() {
                    self.blocks.push(Block::Table {
                        head: t.head,
                        rows: t.rows,
                        align: t.align,
                    });
                }
            }
            TagEnd::Image => {
                if let Some((src, alt)) = self.image.take() {
                    let beside = self.para_images > 0;
                    self.para_images += 1;
                    self.blocks.push(Block::Image { src, alt, beside });
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(spans: &[Span]) -> String {
        spans.iter().map(|s| s.text.as_str()).collect()
    }

    #[test]
    fn markdown_becomes_blocks() {
        let md = "# Title\n\nSome **bold** and `code`.\n\n- one\n- two\n\n<!-- page -->\n\n\
                  | A | B |\n|---|--:|\n| x | 1 |\n| y | 2 |\n\n![Chart](chart-a.svg)\n\n\
                  ```toml\n[spec]\n```\n";
        let b = read(md);
        assert!(matches!(&b[0], Block::Heading { level: 1, spans } if text(spans) == "Title"));
        match &b[1] {
            Block::Para { spans, .. } => {
                assert_eq!(text(spans), "Some bold and code.");
                assert!(
                    spans
                        .iter()
                        .any(|s| s.style == Style::Bold && s.text == "bold")
                );
                assert!(
                    spans
                        .iter()
                        .any(|s| s.style == Style::Mono && s.text == "code")
                );
            }
            other => panic!("{other:?}"),
        }
        assert!(matches!(&b[2], Block::Para { bullet: Some(d), depth: 1, .. } if d == "•"));
        assert!(matches!(&b[3], Block::Para { spans, .. } if text(spans) == "two"));
        assert_eq!(b[4], Block::PageBreak);
        match &b[5] {
            Block::Table { head, rows, align } => {
                assert_eq!(head.len(), 2);
                assert_eq!(rows.len(), 2);
                assert_eq!(align, &[Align::Left, Align::Right]);
                assert_eq!(text(&rows[1][1]), "2");
            }
            other => panic!("{other:?}"),
        }
        assert!(
            matches!(&b[6], Block::Image { src, alt, .. } if src == "chart-a.svg" && alt == "Chart")
        );
        assert_eq!(b[7], Block::Code("[spec]".into()));
    }
}
