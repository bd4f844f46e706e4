//! The chosen candidate as sent: its rows as text in a fresh random order (positions must
//! not link rows across answers), and the [`Disclosure`] the front end records and adds to
//! the recipient's knowledge.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

use super::{Candidate, Plan};
use crate::gatekeeper::{Center, DisclosedColumn, Disclosure, Request};

impl Center {
    /// The released rows in a random order drawn from `seed`, and the disclosure.
    pub(super) fn render(
        &self,
        plan: &Plan,
        chosen: &Candidate,
        request: &Request,
        seed: u64,
    ) -> (Vec<Vec<String>>, Disclosure) {
        let mut columns = Vec::new();
        let mut text: Vec<Vec<String>> = vec![Vec::new(); plan.rows.len()];
        for (c, &j) in plan.selected.iter().enumerate() {
            let col = &self.columns[j];
            let level = chosen.levels.as_ref().and_then(|levels| {
                plan.quasi
                    .iter()
                    .position(|&x| x == j)
                    .map(|i| levels[i] as usize)
            });
            let mut cells: Vec<Vec<String>> = Vec::new();
            let mut index: rustc_hash::FxHashMap<&[u64], u32> = Default::default();
            let mut of_row = Vec::with_capacity(plan.rows.len());
            for (i, &r) in plan.rows.iter().enumerate() {
                let cell = chosen.cells.get(c, i);
                let label = match (level, col.quasi) {
                    (Some(l), Some(q)) => {
                        let h = &self.problem.data.quasi[q].hierarchy;
                        h.label(l, h.code(l, self.original[j][r as usize]))
                            .to_string()
                    }
                    _ => col.render(cell),
                };
                let next = cells.len() as u32;
                let k = *index.entry(cell).or_insert_with(|| {
                    cells.push(
                        col.members(cell)
                            .iter()
                            .map(|&x| col.values[x as usize].clone())
                            .collect(),
                    );
                    next
                });
                of_row.push(k);
                text[i].push(label);
            }
            columns.push(DisclosedColumn {
                name: col.name.clone(),
                cells,
                of_row,
            });
        }
        text.shuffle(&mut ChaCha20Rng::seed_from_u64(seed));
        let disclosure = Disclosure {
            conditions: request.conditions.clone(),
            rows: plan.rows.clone(),
            columns,
        };
        (text, disclosure)
    }
}
