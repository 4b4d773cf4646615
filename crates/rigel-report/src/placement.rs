//! Where page 1 says each validity warning, decided once for every format (Markdown, HTML, the
//! PDF and the terminal render the lists this fills): beside the one answer it concerns; once after
//! the answers, numbered, when it concerns several but not all (each of those answers names it by
//! its number: nine copies of one CPU warning under nine answers buried the figures); once, as about
//! every answer, when it concerns all of them or the run as a whole; among what the volume did when
//! it is a finding about the volume and concerns no answer; otherwise in the appendix.

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

/// An answer as placement reads it: the point it was taken at and its class.
pub struct Taken<'a> {
    pub point: u32,
    pub class: &'a str,
}

/// What [`place`] decided: the warnings each answer says beside it and the numbered ones it
/// names, in the answers' order, and the rest.
pub struct Placed {
    pub beside: Vec<Vec<Warning>>,
    pub see: Vec<Vec<SeeWarning>>,
    pub placement: Placement,
}

/// Whether `w` concerns the answer `a`: taken at one of its points, of its class when it names one.
fn concerns(w: &Warning, a: &Taken) -> bool {
    w.points.contains(&a.point) && w.class.as_deref().is_none_or(|c| c == a.class)
}

/// Places `warnings` on page 1 against its `answers` (the headline and the database team's, in
/// the page's order).
pub fn place(answers: &[Taken], warnings: &[Warning]) -> Placed {
    let of = answers.len();
    let mut placed = Placement::default();
    let mut beside: Vec<Vec<Warning>> = vec![Vec::new(); of];
    let mut see: Vec<Vec<SeeWarning>> = vec![Vec::new(); of];
    for w in warnings {
        let hit: Vec<usize> = (0..of).filter(|&i| concerns(w, &answers[i])).collect();
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
    Placed {
        beside,
        see,
        placement: placed,
    }
}
