//! Level-based generalization hierarchies.
//!
//! A hierarchy is a chain of partitions of an attribute's domain: level 0 holds the original
//! values (the leaves), each higher level merges groups of the level below, and the last
//! level is usually the single group `*`. Groups are identified by their labels, which are
//! opaque strings: two cells that show the same label are in the same group.
//!
//! Hierarchies come from ARX's CSV format (`value;level1;level2;...`, one leaf per row) or
//! from builders for common kinds (numeric intervals, prefix masking, dates, explicit groups).
//! Either way they are validated: every level must be a coarsening of the one below.
//!
//! Paper 000 also admits partitions that form a partial order rather than a chain (blood
//! type: {A,B},{O,AB} and {A,O},{B,AB} both refine `*` but not each other). The
//! `partitions` builder makes such a hierarchy: its levels are the admissible partitions,
//! numbered finest first (by decreasing number of groups, so a partition's number is below
//! that of every partition it refines), with the refinement order and its direct
//! successors kept beside them. A chain is the special case where level `a` refines `b`
//! iff `a ≤ b`.

mod builder;
mod date;
#[cfg(test)]
mod tests;

pub use builder::{Builder, HierarchySpec};
pub(crate) use date::date_key;

use std::path::Path;

use rustc_hash::FxHashMap;

use crate::data::table::Records;
use crate::error::{excerpt, Error, Location, Result};

/// Most levels a hierarchy may have, level 0 included (levels are numbered by `u8`).
const MAX_LEVELS: usize = 256;

/// Longest value the `mask` builder masks (it builds one level per character, each
/// row as long as the value).
const MAX_MASK_CHARS: usize = 64;

/// A validated generalization hierarchy over a finite set of leaves.
#[derive(Debug, Clone)]
pub struct Hierarchy {
    /// `labels[level][code]`: the label of group `code` at `level`.
    labels: Vec<Vec<String>>,
    /// `map[level][leaf]`: the group code of `leaf` at `level` (identity at level 0).
    map: Vec<Vec<u32>>,
    /// `sizes[level][code]`: number of leaves in the group.
    sizes: Vec<Vec<u32>>,
    leaf_index: FxHashMap<String, u32>,
    order: Order,
}

/// How the levels of a hierarchy refine one another.
#[derive(Debug, Clone)]
struct Order {
    /// `refines[a][b]`: every group of level `a` lies inside one group of level `b`.
    refines: Vec<Vec<bool>>,
    /// Direct successors of each level: coarser levels with nothing admissible between.
    covers: Vec<Vec<u8>>,
    chain: bool,
    /// Partition names, for hierarchies built from named partitions.
    names: Vec<String>,
}

impl Order {
    fn chain(levels: usize) -> Order {
        Order {
            refines: (0..levels)
                .map(|a| (0..levels).map(|b| a <= b).collect())
                .collect(),
            covers: (0..levels)
                .map(|a| {
                    if a + 1 < levels {
                        vec![a as u8 + 1]
                    } else {
                        vec![]
                    }
                })
                .collect(),
            chain: true,
            names: Vec::new(),
        }
    }

    /// The refinement order of arbitrary partitions `map[level][leaf]`, given that a level
    /// can only refine levels numbered after it.
    fn of(map: &[Vec<u32>], cardinality: &[usize], names: Vec<String>) -> Order {
        let n = map.len();
        let mut refines = vec![vec![false; n]; n];
        for a in 0..n {
            for b in a..n {
                let mut parent: Vec<Option<u32>> = vec![None; cardinality[a]];
                refines[a][b] = map[a]
                    .iter()
                    .zip(&map[b])
                    .all(|(&x, &y)| *parent[x as usize].get_or_insert(y) == y);
            }
        }
        let covers: Vec<Vec<u8>> = (0..n)
            .map(|a| {
                (a + 1..n)
                    .filter(|&b| {
                        refines[a][b] && !(a + 1..b).any(|c| refines[a][c] && refines[c][b])
                    })
                    .map(|b| b as u8)
                    .collect()
            })
            .collect();
        let chain = (0..n).all(|a| (a..n).all(|b| refines[a][b]));
        Order {
            refines,
            covers,
            chain,
            names,
        }
    }
}

impl Hierarchy {
    /// Builds a hierarchy from rows `[leaf, level1, ..., levelH]`.
    ///
    /// `source` and `lines` are used for error messages (`lines[i]` is the line of row `i`).
    /// Rows repeating a leaf identically are ignored; a leaf generalized two ways is an error.
    pub fn from_rows(
        rows: &[Vec<String>],
        source: &Path,
        lines: Option<&[u64]>,
    ) -> Result<Hierarchy> {
        let line_of = |i: usize| lines.map_or(i as u64 + 1, |l| l[i]);
        let first = rows.first().ok_or_else(|| {
            Error::data(Location::at(source, 1, None), "the hierarchy has no rows")
        })?;
        let width = first.len();
        if width == 0 {
            return Err(Error::data(
                Location::at(source, line_of(0), None),
                "empty hierarchy row",
            ));
        }
        if width > MAX_LEVELS {
            return Err(Error::data(
                Location::at(source, line_of(0), Some(MAX_LEVELS as u64 + 1)),
                format!("the hierarchy has {width} levels, at most {MAX_LEVELS} are allowed"),
            ));
        }
        let mut leaf_index: FxHashMap<String, u32> = FxHashMap::default();
        let mut kept: Vec<usize> = Vec::new();
        for (i, row) in rows.iter().enumerate() {
            if row.len() != width {
                return Err(Error::data(
                    Location::at(source, line_of(i), None),
                    format!("row has {} levels, the first row has {width}", row.len()),
                ));
            }
            match leaf_index.get(&row[0]) {
                Some(&leaf) => {
                    if rows[kept[leaf as usize]] != *row {
                        return Err(Error::data(
                            Location::at(source, line_of(i), Some(1)),
                            format!(
                                "value `{}` appears twice with different generalizations (first at line {})",
                                excerpt(&row[0]),
                                line_of(kept[leaf as usize])
                            ),
                        ));
                    }
                }
                None => {
                    leaf_index.insert(row[0].clone(), kept.len() as u32);
                    kept.push(i);
                }
            }
        }
        let leaves = kept.len();
        let mut labels: Vec<Vec<String>> = Vec::with_capacity(width);
        let mut map: Vec<Vec<u32>> = Vec::with_capacity(width);
        for level in 0..width {
            let mut index: FxHashMap<&str, u32> = FxHashMap::default();
            let mut level_labels = Vec::new();
            let mut level_map = Vec::with_capacity(leaves);
            for &i in &kept {
                let label = rows[i][level].as_str();
                let code = *index.entry(label).or_insert_with(|| {
                    level_labels.push(label.to_owned());
                    (level_labels.len() - 1) as u32
                });
                level_map.push(code);
            }
            if level > 0 {
                // Coarsening: each group of the level below must lie inside one group here.
                let below = &map[level - 1];
                let mut parent: Vec<Option<(u32, usize)>> = vec![None; labels[level - 1].len()];
                for (leaf, &i) in kept.iter().enumerate() {
                    let child = below[leaf] as usize;
                    match parent[child] {
                        None => parent[child] = Some((level_map[leaf], i)),
                        Some((p, first)) if p != level_map[leaf] => {
                            return Err(Error::data(
                                Location::at(source, line_of(i), Some(level as u64 + 1)),
                                format!(
                                    "level {level} is not a coarsening of level {}: `{}` generalizes to `{}` here but to `{}` at line {}",
                                    level - 1,
                                    excerpt(&rows[i][level - 1]),
                                    excerpt(&rows[i][level]),
                                    excerpt(&rows[first][level]),
                                    line_of(first)
                                ),
                            ));
                        }
                        _ => {}
                    }
                }
            }
            labels.push(level_labels);
            map.push(level_map);
        }
        let sizes = map
            .iter()
            .zip(&labels)
            .map(|(m, l)| {
                let mut s = vec![0u32; l.len()];
                for &c in m {
                    s[c as usize] += 1;
                }
                s
            })
            .collect();
        let levels = labels.len();
        Ok(Hierarchy {
            labels,
            map,
            sizes,
            leaf_index,
            order: Order::chain(levels),
        })
    }

    /// Builds a hierarchy whose levels are arbitrary partitions: `rows[i]` is a leaf
    /// followed by its group label in each partition, `names[p]` names partition `p`.
    ///
    /// The finest partition (`names` it `values` when added) and the single group `*` are
    /// added when missing; partitions are renumbered finest first. Two partitions that
    /// group the leaves identically are an error, as is a row of the wrong width.
    fn from_partitions(rows: &[Vec<String>], names: &[String], source: &Path) -> Result<Hierarchy> {
        let at = || Location::file(source);
        if rows.is_empty() {
            return Err(Error::data(at(), "the partitions cover no values"));
        }
        let width = names.len() + 1;
        if width + 1 > MAX_LEVELS {
            return Err(Error::data(
                at(),
                format!(
                    "{} partitions, at most {} are allowed",
                    names.len(),
                    MAX_LEVELS - 2
                ),
            ));
        }
        if let Some(row) = rows.iter().find(|r| r.len() != width) {
            return Err(Error::data(
                at(),
                format!(
                    "value `{}` has {} labels, expected one per partition ({})",
                    excerpt(row.first().map_or("", String::as_str)),
                    row.len().saturating_sub(1),
                    names.len()
                ),
            ));
        }
        let mut leaf_index: FxHashMap<String, u32> = FxHashMap::default();
        for row in rows {
            let next = leaf_index.len() as u32;
            if leaf_index.insert(row[0].clone(), next).is_some() {
                return Err(Error::data(
                    at(),
                    format!("value `{}` is listed twice", excerpt(&row[0])),
                ));
            }
        }
        let leaves = rows.len();
        // (name, labels, map) of every partition, the identity and the top included
        let mut parts: Vec<(String, Vec<String>, Vec<u32>)> = Vec::new();
        for (p, name) in names.iter().enumerate() {
            let mut index: FxHashMap<&str, u32> = FxHashMap::default();
            let mut labels = Vec::new();
            let map = rows
                .iter()
                .map(|r| {
                    *index.entry(r[p + 1].as_str()).or_insert_with(|| {
                        labels.push(r[p + 1].clone());
                        labels.len() as u32 - 1
                    })
                })
                .collect();
            parts.push((name.clone(), labels, map));
        }
        if !parts.iter().any(|p| p.1.len() == leaves) {
            let labels = rows.iter().map(|r| r[0].clone()).collect();
            parts.push(("values".into(), labels, (0..leaves as u32).collect()));
        }
        if !parts.iter().any(|p| p.1.len() == 1) {
            parts.push(("*".into(), vec!["*".into()], vec![0; leaves]));
        }
        // canonical form of a partition: each leaf's group numbered by first appearance
        let canonical = |map: &[u32]| -> Vec<u32> {
            let mut seen: FxHashMap<u32, u32> = FxHashMap::default();
            map.iter()
                .map(|&g| {
                    let next = seen.len() as u32;
                    *seen.entry(g).or_insert(next)
                })
                .collect()
        };
        for a in 0..parts.len() {
            for b in a + 1..parts.len() {
                if canonical(&parts[a].2) == canonical(&parts[b].2) {
                    return Err(Error::data(
                        at(),
                        format!(
                            "partitions `{}` and `{}` group the values identically",
                            parts[a].0, parts[b].0
                        ),
                    ));
                }
            }
        }
        // finest first; a strict refinement always has more groups
        parts.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then_with(|| a.0.cmp(&b.0)));
        let mut labels = Vec::with_capacity(parts.len());
        let mut map = Vec::with_capacity(parts.len());
        let mut part_names = Vec::with_capacity(parts.len());
        for (name, l, m) in parts {
            part_names.push(name);
            labels.push(l);
            map.push(m);
        }
        // level 0 must be the identity on leaf codes
        let identity = map[0].clone();
        labels[0] = (0..leaves)
            .map(|leaf| labels[0][identity[leaf] as usize].clone())
            .collect();
        map[0] = (0..leaves as u32).collect();
        let cardinality: Vec<usize> = labels.iter().map(Vec::len).collect();
        let sizes = map
            .iter()
            .zip(&cardinality)
            .map(|(m, &n)| {
                let mut s = vec![0u32; n];
                for &c in m {
                    s[c as usize] += 1;
                }
                s
            })
            .collect();
        let order = Order::of(&map, &cardinality, part_names);
        Ok(Hierarchy {
            labels,
            map,
            sizes,
            leaf_index,
            order,
        })
    }

    /// Whether the levels form a chain (each refines the next).
    fn is_chain(&self) -> bool {
        self.order.chain
    }

    /// Whether level `a` refines level `b` (every group of `a` lies inside one of `b`).
    pub fn refines(&self, a: usize, b: usize) -> bool {
        self.order.refines[a][b]
    }

    /// The direct successors of `level`: the coarser levels with no admissible level
    /// between (paper 000 section 2.2). For a chain, the next level.
    pub(crate) fn successors(&self, level: usize) -> &[u8] {
        &self.order.covers[level]
    }

    /// The name of `level`: the partition's name for partition hierarchies, else the number.
    pub fn level_name(&self, level: usize) -> String {
        self.order
            .names
            .get(level)
            .cloned()
            .unwrap_or_else(|| level.to_string())
    }

    /// Reads ARX's hierarchy CSV format: no header, one leaf per row, `delimiter`-separated.
    pub fn read_arx(path: &Path, delimiter: u8) -> Result<Hierarchy> {
        let bytes = crate::input::read_auxiliary(path)?;
        let (rows, lines) = match plain_rows(&bytes, delimiter) {
            Some(read) => read,
            None => general_rows(&bytes, path, delimiter)?,
        };
        Self::from_rows(&rows, path, Some(&lines))
    }

    /// Adds `values` (missing-value markers) as leaves that stay a group of their own at
    /// every level but the top, where they join the top group if it is a single one.
    /// Values already in the hierarchy are left as they are.
    pub(crate) fn with_missing(self, values: &[String]) -> Result<Hierarchy> {
        let extra: Vec<&String> = values.iter().filter(|v| self.leaf(v).is_none()).collect();
        if extra.is_empty() {
            return Ok(self);
        }
        let top = self.height();
        let single_top = self.cardinality(top) == 1;
        let mut rows: Vec<Vec<String>> = (0..self.leaf_count() as u32)
            .map(|leaf| {
                (0..self.levels())
                    .map(|l| self.label(l, self.code(l, leaf)).to_owned())
                    .collect()
            })
            .collect();
        for v in extra {
            let mut row = vec![v.clone(); self.levels()];
            if single_top && top > 0 {
                row[top] = self.label(top, 0).to_owned();
            }
            rows.push(row);
        }
        let source = Path::new("<hierarchy with missing values>");
        if self.is_chain() {
            Hierarchy::from_rows(&rows, source, None)
        } else {
            // every level, the identity included, as a named partition
            let names: Vec<String> = (0..self.levels()).map(|l| self.level_name(l)).collect();
            let rows: Vec<Vec<String>> = rows
                .into_iter()
                .map(|r| std::iter::once(r[0].clone()).chain(r).collect())
                .collect();
            Hierarchy::from_partitions(&rows, &names, source)
        }
    }

    /// Number of levels, including level 0.
    pub fn levels(&self) -> usize {
        self.labels.len()
    }
    /// Highest level (`levels() - 1`).
    pub(crate) fn height(&self) -> usize {
        self.labels.len() - 1
    }
    /// Number of distinct leaves: the domain size used by the Loss metric.
    pub(crate) fn leaf_count(&self) -> usize {
        self.map[0].len()
    }
    /// The leaf code of `value`, if it is a leaf.
    pub(crate) fn leaf(&self, value: &str) -> Option<u32> {
        self.leaf_index.get(value).copied()
    }
    /// The label `value` has at `level`; None when `value` is not one of the hierarchy's
    /// values or `level` is not one of its levels.
    pub fn generalize(&self, value: &str, level: usize) -> Option<&str> {
        let leaf = self.leaf(value)?;
        let code = *self.map.get(level)?.get(leaf as usize)?;
        Some(self.label(level, code))
    }
    /// Group code of `leaf` at `level`.
    #[inline]
    pub fn code(&self, level: usize, leaf: u32) -> u32 {
        self.map[level][leaf as usize]
    }
    /// The leaf → group table of `level`.
    pub(crate) fn level_map(&self, level: usize) -> &[u32] {
        &self.map[level]
    }
    /// Number of groups at `level`.
    pub(crate) fn cardinality(&self, level: usize) -> usize {
        self.labels[level].len()
    }
    /// The label of group `code` at `level`.
    pub fn label(&self, level: usize, code: u32) -> &str {
        &self.labels[level][code as usize]
    }
    /// Number of leaves in group `code` of `level`.
    pub(crate) fn group_size(&self, level: usize, code: u32) -> u32 {
        self.sizes[level][code as usize]
    }
    /// Group sizes of `level`, indexed by code.
    pub(crate) fn group_sizes(&self, level: usize) -> &[u32] {
        &self.sizes[level]
    }
}

/// The records of a hierarchy file and the line each starts on, read by the csv crate (any
/// quoting, line ends and errors, located).
fn general_rows(bytes: &[u8], path: &Path, delimiter: u8) -> Result<(Vec<Vec<String>>, Vec<u64>)> {
    let mut records = Records::new(bytes, path, delimiter, b'"', true);
    let mut record = csv::StringRecord::new();
    let (mut rows, mut lines) = (Vec::new(), Vec::new());
    while let Some(line) = records.read(&mut record)? {
        lines.push(line);
        rows.push(record.iter().map(str::to_owned).collect::<Vec<_>>());
    }
    Ok((rows, lines))
}

/// [`general_rows`] without the csv crate, for a plain file: UTF-8 without a byte-order
/// mark, no quote, a carriage return only before a line feed, no field or line near its
/// limit. Each line is a record (a blank one none) and each delimiter ends a field. None
/// when the file is not plain: the csv crate reads it, and says where any error is.
/// (Building the csv crate's reader took about 10 µs a file, as much as the rest of
/// reading Adult's hierarchies.)
fn plain_rows(bytes: &[u8], delimiter: u8) -> Option<(Vec<Vec<String>>, Vec<u64>)> {
    use crate::input::{MAX_FIELD, MAX_LINE};
    if !delimiter.is_ascii()
        || matches!(delimiter, b'\n' | b'\r' | b'"')
        || memchr::memchr(b'"', bytes).is_some()
        || memchr::memchr_iter(b'\r', bytes).any(|i| bytes.get(i + 1) != Some(&b'\n'))
    {
        return None;
    }
    let text = std::str::from_utf8(bytes).ok()?;
    if text.starts_with('\u{feff}') {
        return None;
    }
    let (mut rows, mut lines) = (Vec::new(), Vec::new());
    let body = text.strip_suffix('\n').unwrap_or(text);
    for (at, line) in body.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        // a limit's error comes from the csv crate's reading
        if line.len() >= MAX_LINE / 2 {
            return None;
        }
        if line.is_empty() {
            continue;
        }
        let row: Vec<String> = line.split(delimiter as char).map(str::to_owned).collect();
        if row.iter().any(|field| field.len() >= MAX_FIELD / 2) {
            return None;
        }
        rows.push(row);
        lines.push(at as u64 + 1);
    }
    Some((rows, lines))
}
