//! The set-based tests of released cells: every class of rows released alike is large
//! enough, and no person's confidential formula becomes known. Shared by the level-based,
//! radius, exact and merge searches.

use super::{Cells, Plan};
use crate::algorithm::setbased::SetTable;
use crate::gatekeeper::Center;

impl Center {
    /// Tests set-based cells: every class of rows released alike holds `plan.k` rows, and
    /// no person's confidential formula becomes known.
    pub(crate) fn check_sets(&self, plan: &Plan, cells: &Cells) -> bool {
        self.small_groups(plan, cells).is_empty()
            && self.exposed(plan, cells, 0).unsafe_persons == 0
    }

    /// Positions (in `plan.rows`) of rows whose released public cells are shared by fewer
    /// than `plan.k` rows.
    pub(crate) fn small_groups(&self, plan: &Plan, cells: &Cells) -> Vec<usize> {
        let k = plan.k.unwrap_or(1) as usize;
        if k <= 1 {
            return Vec::new();
        }
        let public: Vec<usize> = (0..plan.selected.len())
            .filter(|&c| self.columns[plan.selected[c]].quasi.is_some())
            .collect();
        // each row's class: the index of its public cells among the distinct ones
        let mut index: rustc_hash::FxHashMap<Vec<u64>, u32> = Default::default();
        let mut class = Vec::with_capacity(plan.rows.len());
        let mut sizes: Vec<usize> = Vec::new();
        let mut key = Vec::new();
        for i in 0..plan.rows.len() {
            key.clear();
            for &c in &public {
                key.extend_from_slice(cells.get(c, i));
            }
            let g = match index.get(key.as_slice()) {
                Some(&g) => g,
                None => {
                    index.insert(key.clone(), sizes.len() as u32);
                    sizes.push(0);
                    sizes.len() as u32 - 1
                }
            };
            sizes[g as usize] += 1;
            class.push(g);
        }
        (0..plan.rows.len())
            .filter(|&i| sizes[class[i] as usize] < k)
            .collect()
    }

    /// The safety of the recipient's knowledge with `cells` released, listing at most
    /// `limit` exposed persons.
    pub(crate) fn exposed(
        &self,
        plan: &Plan,
        cells: &Cells,
        limit: usize,
    ) -> crate::algorithm::setbased::SetSafety {
        let mut k = plan.base.clone();
        for (c, &j) in plan.selected.iter().enumerate() {
            for (i, &r) in plan.rows.iter().enumerate() {
                self.intersect(&mut k, r as usize, j, cells.get(c, i));
            }
        }
        SetTable::with_cells(&self.problem, &Default::default(), k.cells)
            .expect("the center's table was built the same way")
            .safety(limit)
    }
}
