//! Where page 1 says each validity warning, decided once for every format (Markdown, HTML, the
//! PDF and the terminal render the lists this fills): beside the one answer it concerns; once after
//! the answers, numbered, when it concerns several but not all (each of those answers names it by
//! its number: nine copies of one CPU warning under nine answers buried the figures); once, as about
//! every answer, when it concerns all of them or the run as a whole; among what the volume did when
//! it is a finding about the volume and concerns no answer; otherwise in the appendix.

use crate::handover::{Figure, Handover};
use rigel_results::stats::Warning;
use serde::Serialize;

/// A warning said once after the answers; each answer it concerns names it by `number`.
#[derive(Clone, Debug, Serialize)]
pub struct Numbered {
    /// From 1, in the order of the run's warnings.
    pub number: usize,
    pub kind: &'static str,
    /// How many of page 1's answers it concerns, and of how many.
    pub answers: usize,
    pub of: usize,
    pub message: String,
}

/// An answer's pointer to a [`Numbered`] warning.
#[derive(Clone, Debug, Serialize)]
pub struct SeeWarning {
    pub number: usize,
    pub kind: &'static str,
}

/// The warnings page 1 does not say beside one answer (those are each answer's `beside`).
#[derive(Clone, Debug, Default, Serialize)]
pub struct Placement {
    /// About several answers but not all: after the answers, numbered.
    pub several: Vec<Numbered>,
    /// About every answer, or about the run as a whole.
    pub every: Vec<Warning>,
    /// Findings about the volume at points no answer was taken at: still page 1's.
    pub volume: Vec<Warning>,
    /// The points' other warnings that concern no answer: the appendix lists them.
    pub appendix: Vec<Warning>,
}

/// Whether `w` concerns the answer `f`: taken at one of its points, of its class when it names one.
fn concerns(w: &Warning, f: &Figure) -> bool {
    w.points.contains(&f.point) && w.class.as_ref().is_none_or(|c| *c == f.class)
}

/// Places `warnings` on page 1 against the handover's answers (`Handover::answers`, headline and
/// the database team's): fills each answer's `beside` and `see` and the handover's `warnings`.
pub fn place(h: &mut Handover, warnings: &[Warning]) {
    let hits: Vec<Vec<usize>> = {
        let answers = h.answers();
        warnings
            .iter()
            .map(|w| {
                (0..answers.len())
                    .filter(|&i| concerns(w, answers[i]))
                    .collect()
            })
            .collect()
    };
    let of = h.answers().len();
    let mut placed = Placement::default();
    let mut beside: Vec<Vec<Warning>> = vec![Vec::new(); of];
    let mut see: Vec<Vec<SeeWarning>> = vec![Vec::new(); of];
    for (w, hit) in warnings.iter().zip(hits) {
        if w.points.is_empty() || (of > 0 && hit.len() == of) {
            placed.every.push(w.clone());
        } else if hit.len() >= 2 {
            let number = placed.several.len() + 1;
            for &i in &hit {
                see[i].push(SeeWarning {
                    number,
                    kind: w.kind,
                });
            }
            placed.several.push(Numbered {
                number,
                kind: w.kind,
                answers: hit.len(),
                of,
                message: w.message.clone(),
            });
        } else if let [i] = hit[..] {
            beside[i].push(w.clone());
        } else if w.volume {
            placed.volume.push(w.clone());
        } else {
            placed.appendix.push(w.clone());
        }
    }
    for ((f, b), s) in h.answers_mut().zip(beside).zip(see) {
        (f.beside, f.see) = (b, s);
    }
    h.warnings = placed;
}
