//! The AOG paper's objective `sf-ql` = 1 − sf·ql (section 4.3): security times quality.
//! sf is one minus the mean re-identification risk of a person under the `[safety]`
//! section's confidential formulas; as sf ≤ 1 and ql only falls under generalization,
//! 1 − ql bounds every generalization.

use std::sync::Arc;

use super::{Basis, Measure, Node, Score};
use crate::data::confidentiality::Confidentiality;
use crate::framework::classes::Classes;
use crate::framework::dataset::Dataset;

/// sf(τ) = 1 − Σ_u ri(τ, u) / |U| over classes whose profile histograms start at `offset`;
/// suppressed classes (released as nothing) carry no risk. In [0, 1].
pub(crate) fn sf(
    c: &Confidentiality,
    offset: usize,
    classes: &Classes,
    suppressed: Option<&[bool]>,
    rows: usize,
) -> f64 {
    let width = c.profiles.len();
    let risk: f64 = (0..classes.len())
        .filter(|&k| suppressed.is_none_or(|s| !s[k]))
        .map(|k| {
            c.class_risk(
                &classes.histogram(k)[offset..offset + width],
                classes.counts[k],
            )
        })
        .sum();
    // at most 1 per person, but rounding may carry the mean a bit past 1
    (1.0 - risk / rows.max(1) as f64).max(0.0)
}

/// `1 − sf·ql`, bound to a dataset with a `[safety]` section.
#[derive(Debug, Clone)]
pub(crate) struct SfQl {
    confidentiality: Arc<Confidentiality>,
    /// Where the profile histogram starts in a class histogram row.
    offset: usize,
}

impl SfQl {
    /// sf-ql on `data`, or None when it has no `[safety]` section.
    pub(super) fn new(data: &Dataset) -> Option<SfQl> {
        Some(SfQl {
            confidentiality: data.confidentiality.clone()?,
            offset: data.profile_offset(),
        })
    }
}

impl Measure for SfQl {
    fn score(&self, basis: &Basis, node: &Node<'_>) -> Score {
        let security = sf(
            &self.confidentiality,
            self.offset,
            node.classes,
            Some(node.suppressed),
            basis.rows as usize,
        );
        Score::scalar(1.0 - security * basis.ql(node.levels))
    }
    fn level_bound(&self, basis: &Basis, levels: &[u8]) -> Option<Score> {
        Some(Score::scalar(1.0 - basis.ql(levels)))
    }
}
