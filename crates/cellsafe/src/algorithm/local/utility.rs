//! Utility of a local recoding (paper 004 section 4): the discernibility penalty
//! C_DM = Σ |G|² over the groups, and the normalized certainty penalty NCP (Xu et al.):
//! per tuple the sum over quasi-identifiers of its generalized value's NCP, in total and
//! normalized to [0, 1] by rows × quasi-identifiers.

use serde::Serialize;

use super::Recoded;

/// A recoding's utility figures.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Utility {
    /// Number of groups.
    pub groups: usize,
    /// Rows of the smallest group.
    pub min_group: usize,
    /// Σ |G|².
    pub c_dm: u64,
    /// Σ over tuples and quasi-identifiers of NCP.
    pub ncp: f64,
    /// `ncp` over rows × quasi-identifiers, in [0, 1].
    pub ncp_normalized: f64,
}

/// The utility of `recoded`.
pub fn utility(recoded: &Recoded) -> Utility {
    let groups = &recoded.partition.groups;
    let c_dm = groups.iter().map(|g| (g.len() as u64).pow(2)).sum();
    let ncp: f64 = groups
        .iter()
        .zip(&recoded.values)
        .map(|(rows, values)| {
            let per_tuple: f64 = values
                .iter()
                .zip(&recoded.domains)
                .map(|(v, d)| d.ncp(v))
                .sum();
            per_tuple * rows.len() as f64
        })
        .sum();
    let rows: usize = groups.iter().map(Vec::len).sum();
    let cells = (rows * recoded.domains.len()).max(1) as f64;
    Utility {
        groups: groups.len(),
        min_group: groups.iter().map(Vec::len).min().unwrap_or(0),
        c_dm,
        ncp,
        ncp_normalized: ncp / cells,
    }
}
