//! Exact counting of the exclusive disclosure set for nested sequences, without enumeration.
//!
//! When each g_j refines g_{j+1}, the groups form a forest: every group of g_i splits into
//! groups of g_{i-1}, and so on down to g_1. A table is in DS_e,i when, for every j < i, some
//! group of g_j holds a multiset that fails the check. Within one group of g_i this is a
//! question about how its multiset splits among sub-groups, so we count bottom-up: for each
//! sub-group and each sub-multiset it could hold, the number of arrangements together with
//! the set of levels (a bit mask) at which a failing group already occurs. Groups of g_i
//! combine by OR of their masks, and a table counts when the mask is full.
//!
//! Per-person counts use exchangeability: everyone in the same group of g_1 has the same
//! counts, and fixing one person's value v in a group holding multiset c leaves the
//! arrangements of c − v for the others. Recomputing the tables along that group's path to
//! the root gives the count for each (g_1 group, value).

use rustc_hash::FxHashMap;

use super::arith::multinomial;
use super::{Disclosure, Tally};
use crate::error::{Error, Result};
use crate::observer::Stage;

/// Inner steps between two cancellation checks.
const WORK_PER_CHECK: u64 = 1 << 14;

/// Largest number of sub-multisets of one top group the method will index.
const MAX_STATES: u64 = 1 << 22;

fn too_large(what: &str) -> Error {
    Error::Intractable(format!("counting: {what}"))
}

/// Sub-multisets of one top group's multiset, in mixed radix.
struct States {
    /// Values present in the top group and their multiplicities.
    values: Vec<u16>,
    caps: Vec<u32>,
    digits: Vec<u32>,
    by_sum: Vec<Vec<u32>>,
}

impl States {
    fn new(values: Vec<u16>, caps: Vec<u32>) -> Result<States> {
        let k = caps.len();
        let mut size: u64 = 1;
        for &c in &caps {
            size = size
                .checked_mul(c as u64 + 1)
                .filter(|&s| s <= MAX_STATES)
                .ok_or_else(|| too_large("a group holds too many distinct sub-multisets"))?;
        }
        let total: u32 = caps.iter().sum();
        let mut digits = vec![0u32; size as usize * k];
        let mut by_sum = vec![Vec::new(); total as usize + 1];
        for s in 0..size as usize {
            let mut rest = s;
            let mut sum = 0;
            for (d, &c) in caps.iter().enumerate() {
                let digit = (rest % (c as usize + 1)) as u32;
                rest /= c as usize + 1;
                digits[s * k + d] = digit;
                sum += digit;
            }
            by_sum[sum as usize].push(s as u32);
        }
        Ok(States {
            values,
            caps,
            digits,
            by_sum,
        })
    }
    fn digits(&self, s: u32) -> &[u32] {
        let k = self.caps.len();
        &self.digits[s as usize * k..(s as usize + 1) * k]
    }
    fn full(&self) -> u32 {
        (self.digits.len() / self.caps.len().max(1)) as u32 - 1
    }
}

/// For each reachable sub-multiset (state), arrangement counts per mask.
#[derive(Clone)]
struct Tab {
    states: Vec<u32>,
    counts: Vec<u128>,
}

struct Counter<'a> {
    d: &'a Disclosure,
    stage: &'a Stage<'a>,
    /// Target generalization (0-based); masks have one bit per earlier level.
    i: usize,
    masks: usize,
    work: u64,
    limit: u64,
    /// children[level][group]: groups of level − 1 inside it.
    children: Vec<Vec<Vec<u32>>>,
}

impl Counter<'_> {
    fn fails(&self, states: &States, s: u32, size: usize) -> bool {
        let hist: Vec<u128> = states.digits(s).iter().map(|&x| x as u128).collect();
        !self.d.group_passes(&hist, size as u128)
    }

    fn leaf(&self, states: &States, size: usize, fixed: Option<usize>) -> Result<Tab> {
        let m = self.masks;
        let list = states.by_sum.get(size).map_or(&[][..], |v| &v[..]);
        let mut tab = Tab {
            states: Vec::with_capacity(list.len()),
            counts: Vec::with_capacity(list.len() * m),
        };
        for &s in list {
            let digits = states.digits(s);
            let count = match fixed {
                None => multinomial(digits.iter().map(|&x| x as u64)),
                Some(k) if digits[k] == 0 => Some(0),
                Some(k) => multinomial(
                    digits
                        .iter()
                        .enumerate()
                        .map(|(d, &x)| x as u64 - (d == k) as u64),
                ),
            }
            .ok_or_else(|| too_large("a count exceeds 2^128"))?;
            let mask = usize::from(self.i > 0 && self.fails(states, s, size));
            tab.states.push(s);
            let base = tab.counts.len();
            tab.counts.resize(base + m, 0);
            tab.counts[base + mask] = count;
        }
        Ok(tab)
    }

    fn convolve(&mut self, states: &States, a: &Tab, b: &Tab, index: &mut [u32]) -> Result<Tab> {
        let m = self.masks;
        let k = states.caps.len();
        let mut out = Tab {
            states: Vec::new(),
            counts: Vec::new(),
        };
        for (ia, &sa) in a.states.iter().enumerate() {
            let da = states.digits(sa);
            let ca = &a.counts[ia * m..(ia + 1) * m];
            for (ib, &sb) in b.states.iter().enumerate() {
                let db = states.digits(sb);
                if (0..k).any(|d| da[d] + db[d] > states.caps[d]) {
                    continue;
                }
                self.work += 1;
                if self.work > self.limit {
                    return Err(too_large("the work limit was reached"));
                }
                if self.work.is_multiple_of(WORK_PER_CHECK) {
                    self.stage.check()?;
                }
                let s = sa + sb;
                let slot = if index[s as usize] == u32::MAX {
                    index[s as usize] = out.states.len() as u32;
                    out.states.push(s);
                    out.counts.resize(out.counts.len() + m, 0);
                    out.states.len() - 1
                } else {
                    index[s as usize] as usize
                };
                let cb = &b.counts[ib * m..(ib + 1) * m];
                for (ma, &va) in ca.iter().enumerate().filter(|(_, &v)| v != 0) {
                    for (mb, &vb) in cb.iter().enumerate().filter(|(_, &v)| v != 0) {
                        let cell = &mut out.counts[slot * m + (ma | mb)];
                        *cell = va
                            .checked_mul(vb)
                            .and_then(|p| cell.checked_add(p))
                            .ok_or_else(|| too_large("a count exceeds 2^128"))?;
                    }
                }
            }
        }
        for &s in &out.states {
            index[s as usize] = u32::MAX;
        }
        Ok(out)
    }

    /// Marks level `level` in every state whose multiset fails at a group of `size`.
    fn mark(&self, states: &States, tab: &mut Tab, level: usize, size: usize) {
        if level >= self.i {
            return;
        }
        let m = self.masks;
        let bit = 1 << level;
        for (idx, &s) in tab.states.iter().enumerate() {
            if self.fails(states, s, size) {
                let row = &mut tab.counts[idx * m..(idx + 1) * m];
                for mask in (0..m).filter(|mask| mask & bit == 0) {
                    row[mask | bit] += std::mem::take(&mut row[mask]);
                }
            }
        }
    }

    /// The table of group `g` at `level`, from cached tables of its children, with one child
    /// optionally replaced.
    fn node(
        &mut self,
        states: &States,
        cache: &FxHashMap<(usize, u32), Tab>,
        level: usize,
        g: u32,
        replaced: Option<(u32, &Tab)>,
        index: &mut [u32],
    ) -> Result<Tab> {
        let size = self.d.chain[level].groups()[g as usize].len();
        let children = self.children[level][g as usize].clone();
        let pick = |c: u32| -> &Tab {
            match replaced {
                Some((r, tab)) if r == c => tab,
                _ => &cache[&(level - 1, c)],
            }
        };
        let mut acc = pick(children[0]).clone();
        for &c in &children[1..] {
            acc = self.convolve(states, &acc, pick(c), index)?;
        }
        self.mark(states, &mut acc, level, size);
        Ok(acc)
    }

    fn top_vector(&self, states: &States, tab: &Tab) -> Vec<u128> {
        let m = self.masks;
        let full = states.full();
        tab.states
            .iter()
            .position(|&s| s == full)
            .map_or(vec![0; m], |idx| {
                tab.counts[idx * m..(idx + 1) * m].to_vec()
            })
    }

    fn or_convolve(&self, a: &[u128], b: &[u128]) -> Result<Vec<u128>> {
        let mut out = vec![0u128; self.masks];
        for (ma, &va) in a.iter().enumerate().filter(|(_, &v)| v != 0) {
            for (mb, &vb) in b.iter().enumerate().filter(|(_, &v)| v != 0) {
                out[ma | mb] = va
                    .checked_mul(vb)
                    .and_then(|p| out[ma | mb].checked_add(p))
                    .ok_or_else(|| too_large("a count exceeds 2^128"))?;
            }
        }
        Ok(out)
    }

    fn full_pairs(&self, a: &[u128], b: &[u128]) -> Result<u128> {
        let full = self.masks - 1;
        let mut total = 0u128;
        for (ma, &va) in a.iter().enumerate().filter(|(_, &v)| v != 0) {
            for (mb, &vb) in b.iter().enumerate().filter(|(_, &v)| v != 0) {
                if ma | mb == full {
                    total = va
                        .checked_mul(vb)
                        .and_then(|p| total.checked_add(p))
                        .ok_or_else(|| too_large("a count exceeds 2^128"))?;
                }
            }
        }
        Ok(total)
    }
}

/// Per top group: its tables' vector, and one vector per (g₁ group, value index).
struct TopResult {
    vector: Vec<u128>,
    fixed: Vec<(u32, u16, Vec<u128>)>,
}

/// DS_e,i counted exactly; requires g_0 ⊑ g_1 ⊑ … ⊑ g_i (each refining the next).
pub(crate) fn exclusive(d: &Disclosure, i: usize, limit: u64, stage: &Stage) -> Result<Tally> {
    if i >= 16 {
        return Err(too_large(
            "more than 16 generalizations before the released one",
        ));
    }
    let chain = &d.chain;
    let mut children: Vec<Vec<Vec<u32>>> = vec![Vec::new(); i + 1];
    for level in 1..=i {
        children[level] = vec![Vec::new(); chain[level].groups().len()];
        for (g, rows) in chain[level - 1].groups().iter().enumerate() {
            let parent = chain[level].group_of(rows[0] as usize);
            children[level][parent].push(g as u32);
        }
    }
    let mut counter = Counter {
        d,
        stage,
        i,
        masks: 1 << i,
        work: 0,
        limit,
        children,
    };
    let x = &d.instance.sensitive;
    let mut tops = Vec::new();
    for (t, rows) in chain[i].groups().iter().enumerate() {
        let mut hist: FxHashMap<u16, u32> = FxHashMap::default();
        for &r in rows {
            *hist.entry(x[r as usize]).or_default() += 1;
        }
        let mut present: Vec<(u16, u32)> = hist.into_iter().collect();
        present.sort_unstable();
        stage.check()?;
        let states = States::new(
            present.iter().map(|p| p.0).collect(),
            present.iter().map(|p| p.1).collect(),
        )?;
        tops.push(count_top(&mut counter, &states, t as u32)?);
    }
    // Prefix and suffix OR-products of the top groups' vectors.
    let mut unit = vec![0u128; counter.masks];
    unit[0] = 1;
    let mut prefix = vec![unit.clone()];
    for top in &tops {
        let next = counter.or_convolve(prefix.last().expect("non-empty"), &top.vector)?;
        prefix.push(next);
    }
    let mut suffix = vec![unit; tops.len() + 1];
    for t in (0..tops.len()).rev() {
        suffix[t] = counter.or_convolve(&tops[t].vector, &suffix[t + 1])?;
    }
    let full = counter.masks - 1;
    let m = d.values();
    let mut tally = Tally::new(d.instance.rows(), m);
    tally.total = prefix[tops.len()][full];
    for (t, top) in tops.iter().enumerate() {
        let others = counter.or_convolve(&prefix[t], &suffix[t + 1])?;
        for (leaf, value, vector) in &top.fixed {
            let n = counter.full_pairs(&others, vector)?;
            for &r in &chain[0].groups()[*leaf as usize] {
                tally.counts[r as usize * m + *value as usize] = n;
            }
        }
    }
    Ok(tally)
}

fn count_top(counter: &mut Counter, states: &States, top: u32) -> Result<TopResult> {
    let i = counter.i;
    let chain = &counter.d.chain;
    let mut index = vec![u32::MAX; states.full() as usize + 1];
    // Nodes of this top group, level by level, top first.
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(); i + 1];
    levels[i].push(top);
    for level in (1..=i).rev() {
        let below: Vec<u32> = levels[level]
            .iter()
            .flat_map(|&g| counter.children[level][g as usize].iter().copied())
            .collect();
        levels[level - 1] = below;
    }
    let mut cache: FxHashMap<(usize, u32), Tab> = FxHashMap::default();
    for &g in &levels[0] {
        let size = chain[0].groups()[g as usize].len();
        cache.insert((0, g), counter.leaf(states, size, None)?);
    }
    for (level, groups) in levels.iter().enumerate().skip(1) {
        for &g in groups {
            let tab = counter.node(states, &cache, level, g, None, &mut index)?;
            cache.insert((level, g), tab);
        }
    }
    let vector = counter.top_vector(states, &cache[&(i, top)]);
    let mut fixed = Vec::new();
    for &leaf in &levels[0] {
        let size = chain[0].groups()[leaf as usize].len();
        for k in 0..states.values.len() {
            let mut tab = counter.leaf(states, size, Some(k))?;
            let mut node = leaf;
            for level in 1..=i {
                let parent =
                    chain[level].group_of(chain[0].groups()[leaf as usize][0] as usize) as u32;
                tab = counter.node(
                    states,
                    &cache,
                    level,
                    parent,
                    Some((node, &tab)),
                    &mut index,
                )?;
                node = parent;
            }
            fixed.push((leaf, states.values[k], counter.top_vector(states, &tab)));
        }
    }
    Ok(TopResult { vector, fixed })
}
