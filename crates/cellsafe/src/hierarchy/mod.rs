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

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rustc_hash::FxHashMap;
use serde::Deserialize;

use crate::data::number;
use crate::data::table::Records;
use crate::error::{excerpt, Error, Location, Result};

/// Most levels a hierarchy may have, level 0 included (levels are numbered by `u8`).
pub const MAX_LEVELS: usize = 256;

/// Longest value the `mask` builder masks (it builds one level per character, each
/// row as long as the value).
pub const MAX_MASK_CHARS: usize = 64;

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
    pub fn from_partitions(
        rows: &[Vec<String>],
        names: &[String],
        source: &Path,
    ) -> Result<Hierarchy> {
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
    pub fn is_chain(&self) -> bool {
        self.order.chain
    }

    /// Whether level `a` refines level `b` (every group of `a` lies inside one of `b`).
    pub fn refines(&self, a: usize, b: usize) -> bool {
        self.order.refines[a][b]
    }

    /// The direct successors of `level`: the coarser levels with no admissible level
    /// between (paper 000 section 2.2). For a chain, the next level.
    pub fn successors(&self, level: usize) -> &[u8] {
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
        let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
        let mut records = Records::new(file, path, delimiter, b'"', true);
        let mut record = csv::StringRecord::new();
        let mut rows = Vec::new();
        let mut lines = Vec::new();
        while let Some(line) = records.read(&mut record)? {
            lines.push(line);
            rows.push(record.iter().map(str::to_owned).collect::<Vec<_>>());
        }
        Self::from_rows(&rows, path, Some(&lines))
    }

    /// Adds `values` (missing-value markers) as leaves that stay a group of their own at
    /// every level but the top, where they join the top group if it is a single one.
    /// Values already in the hierarchy are left as they are.
    pub fn with_missing(self, values: &[String]) -> Result<Hierarchy> {
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
    pub fn height(&self) -> usize {
        self.labels.len() - 1
    }
    /// Number of distinct leaves: the domain size used by the Loss metric.
    pub fn leaf_count(&self) -> usize {
        self.map[0].len()
    }
    pub fn leaf(&self, value: &str) -> Option<u32> {
        self.leaf_index.get(value).copied()
    }
    /// Group code of `leaf` at `level`.
    #[inline]
    pub fn code(&self, level: usize, leaf: u32) -> u32 {
        self.map[level][leaf as usize]
    }
    /// The leaf → group table of `level`.
    pub fn level_map(&self, level: usize) -> &[u32] {
        &self.map[level]
    }
    /// Number of groups at `level`.
    pub fn cardinality(&self, level: usize) -> usize {
        self.labels[level].len()
    }
    pub fn label(&self, level: usize, code: u32) -> &str {
        &self.labels[level][code as usize]
    }
    /// Number of leaves in group `code` of `level`.
    pub fn group_size(&self, level: usize, code: u32) -> u32 {
        self.sizes[level][code as usize]
    }
    /// Group sizes of `level`, indexed by code.
    pub fn group_sizes(&self, level: usize) -> &[u32] {
        &self.sizes[level]
    }
}

/// A hierarchy as written in the configuration: a file, or a builder.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum HierarchySpec {
    /// Path of an ARX hierarchy CSV file (`;`-separated), relative to the config file.
    File(PathBuf),
    Builder(Builder),
}

/// Builders for common hierarchies. The leaves are the distinct values of the column.
#[derive(Debug, Clone, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Builder {
    /// Numeric intervals `[lo, lo+w)` aligned on multiples of `w`, one level per width;
    /// widths must nest (each divides the next). A final `*` level is added.
    Intervals { widths: Vec<f64> },
    /// Masks characters from the right, one per level (24126 → 2412* → ... → *****).
    Mask {},
    /// Dates: day → month → year → `*`. `format` uses `%d`, `%m`, `%y` / `%Y`.
    Date { format: String },
    /// Explicit groupings: each level maps a label to the labels of the level below it.
    /// A final `*` level is added when the last level has more than one group.
    Groups {
        levels: Vec<BTreeMap<String, Vec<String>>>,
    },
    /// A single level `*` above the values: the attribute can only be kept or suppressed.
    Suppress {},
    /// Admissible partitions that need not form a chain (paper 000): partition name →
    /// group label → the values in the group. The values themselves and `*` are added.
    Partitions {
        partitions: BTreeMap<String, BTreeMap<String, Vec<String>>>,
    },
}

impl Builder {
    /// Numeric intervals of the given nested widths, then `*`.
    pub fn intervals(widths: &[f64]) -> Builder {
        Builder::Intervals {
            widths: widths.to_vec(),
        }
    }
    /// Characters masked from the right, one per level.
    pub fn mask() -> Builder {
        Builder::Mask {}
    }
    /// Dates in `format` (`%d`, `%m`, `%y`/`%Y`): day, month, year, `*`.
    pub fn date(format: &str) -> Builder {
        Builder::Date {
            format: format.to_owned(),
        }
    }
    /// Kept or suppressed: one level `*` above the values.
    pub fn suppress() -> Builder {
        Builder::Suppress {}
    }

    /// Builds the hierarchy for `values`; `key` names the config entry in errors.
    pub fn build(&self, values: &[String], file: &str, key: &str) -> Result<Hierarchy> {
        if values.is_empty() {
            return Err(Error::config(
                file,
                key,
                "the column has no values to build a hierarchy from",
            ));
        }
        let (levels, what) = match self {
            Builder::Intervals { widths } => (widths.len(), "widths"),
            Builder::Groups { levels } => (levels.len(), "levels"),
            Builder::Partitions { partitions } => (partitions.len(), "partitions"),
            _ => (0, ""),
        };
        if levels + 2 > MAX_LEVELS {
            return Err(Error::config(
                file,
                format!("{key}.{what}"),
                format!("{levels} levels, at most {} are allowed", MAX_LEVELS - 2),
            ));
        }
        if let Builder::Partitions { partitions } = self {
            return partition_hierarchy(values, partitions, file, key);
        }
        let rows: Vec<Vec<String>> = match self {
            Builder::Partitions { .. } => unreachable!("handled above"),
            Builder::Intervals { widths } => interval_rows(values, widths, file, key)?,
            Builder::Mask {} => mask_rows(values, file, key)?,
            Builder::Date { format } => date_rows(values, format, file, key)?,
            Builder::Groups { levels } => group_rows(values, levels, file, key)?,
            Builder::Suppress {} => values.iter().map(|v| vec![v.clone(), "*".into()]).collect(),
        };
        if rows.is_empty() {
            return Err(Error::config(
                file,
                key,
                "the column has no values to build a hierarchy from",
            ));
        }
        let source = PathBuf::from(format!("{file} ({key})"));
        Hierarchy::from_rows(&rows, &source, None)
    }
}

impl Builder {
    /// Whether the builder can place `value`: a date builder needs a calendar date in its
    /// format, an interval builder a number. Front ends check each value with this first
    /// to name the line and column of a bad one; [`Builder::build`] refuses it too.
    pub fn check_value(&self, value: &str) -> std::result::Result<(), String> {
        match self {
            Builder::Date { format } => match date_fields(format) {
                // a bad format is the config key's error, reported by `build`
                Err(_) => Ok(()),
                Ok((fields, _)) => date_parts(value, &fields).map(|_| ()).map_err(|e| {
                    if e.ends_with("format") {
                        format!("{e} `{format}`")
                    } else {
                        e
                    }
                }),
            },
            Builder::Intervals { .. } => match number::parse(value) {
                Some(_) => Ok(()),
                None => Err(format!(
                    "value `{}` is not a finite number, so interval levels cannot be built",
                    excerpt(value)
                )),
            },
            _ => Ok(()),
        }
    }
}

/// Adds a final `*` level when `always`, or when the last level has more than one group.
fn with_top(mut rows: Vec<Vec<String>>, always: bool) -> Vec<Vec<String>> {
    let last = rows[0].len() - 1;
    if always || rows.iter().any(|r| r[last] != rows[0][last]) {
        for r in &mut rows {
            r.push("*".into());
        }
    }
    rows
}

fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn interval_rows(
    values: &[String],
    widths: &[f64],
    file: &str,
    key: &str,
) -> Result<Vec<Vec<String>>> {
    for (i, &w) in widths.iter().enumerate() {
        if !(w.is_finite() && w > 0.0) {
            return Err(Error::config(
                file,
                format!("{key}.widths[{i}]"),
                "width must be a positive number",
            ));
        }
        if i > 0 {
            let ratio = w / widths[i - 1];
            if ratio < 1.0 || (ratio - ratio.round()).abs() > 1e-9 {
                return Err(Error::config(
                    file,
                    format!("{key}.widths[{i}]"),
                    format!(
                        "width {w} is not a multiple of the previous width {}",
                        widths[i - 1]
                    ),
                ));
            }
        }
    }
    let mut rows = Vec::with_capacity(values.len());
    for v in values {
        let x = number::parse(v).ok_or_else(|| {
            Error::config(
                file,
                key,
                format!(
                    "value `{}` is not a finite number, so interval levels cannot be built",
                    excerpt(v)
                ),
            )
        })?;
        let mut row = vec![v.clone()];
        for &w in widths {
            let lo = (x / w).floor() * w;
            row.push(format!("[{},{})", format_number(lo), format_number(lo + w)));
        }
        rows.push(row);
    }
    Ok(with_top(rows, true))
}

fn mask_rows(values: &[String], file: &str, key: &str) -> Result<Vec<Vec<String>>> {
    if let Some(v) = values
        .iter()
        .find(|v| v.chars().nth(MAX_MASK_CHARS).is_some())
    {
        return Err(Error::config(
            file,
            key,
            format!(
                "value `{}` is longer than {MAX_MASK_CHARS} characters, the most a mask \
                 hierarchy masks",
                excerpt(v)
            ),
        ));
    }
    let max_len = values.iter().map(|v| v.chars().count()).max().unwrap_or(0);
    let rows = values
        .iter()
        .map(|v| {
            let chars: Vec<char> = v.chars().collect();
            let mut row = vec![v.clone()];
            for masked in 1..=max_len {
                let keep = chars.len().saturating_sub(masked);
                let mut s: String = chars[..keep].iter().collect();
                s.extend(std::iter::repeat_n('*', chars.len() - keep));
                row.push(s);
            }
            row
        })
        .collect();
    Ok(with_top(rows, false))
}

/// The fields of a date format (`%d`, `%m`, `%y`/`%Y`, in order) and its first separator.
fn date_fields(format: &str) -> std::result::Result<(Vec<char>, char), String> {
    let mut fields = Vec::new();
    let mut sep = None;
    let mut chars = format.chars();
    while let Some(c) = chars.next() {
        if c == '%' {
            match chars.next() {
                Some(f @ ('d' | 'm' | 'y' | 'Y')) => fields.push(f),
                other => {
                    return Err(format!(
                        "unknown date field `%{}` (use %d, %m, %y or %Y)",
                        other.unwrap_or(' ')
                    ))
                }
            }
        } else {
            sep.get_or_insert(c);
        }
    }
    if !(fields.contains(&'d')
        && fields.contains(&'m')
        && (fields.contains(&'y') || fields.contains(&'Y')))
    {
        return Err("date format needs %d, %m and %y or %Y".into());
    }
    Ok((fields, sep.unwrap_or('/')))
}

/// Day, month and year digits of `value` read with `fields`. An error says why it is not
/// a date: it does not match the format, or names no day of the calendar (31/02).
fn date_parts<'v>(
    value: &'v str,
    fields: &[char],
) -> std::result::Result<(u32, u32, &'v str), String> {
    let parts: Vec<&str> = value
        .split(|c: char| !c.is_ascii_digit())
        .filter(|p| !p.is_empty())
        .collect();
    let no_match = || format!("value `{}` does not match the date format", excerpt(value));
    if parts.len() != fields.len() {
        return Err(no_match());
    }
    let (mut day, mut month, mut year, mut two_digit) = ("", "", "", false);
    for (f, p) in fields.iter().zip(&parts) {
        match f {
            'd' => day = p,
            'm' => month = p,
            f => {
                year = p;
                two_digit = *f == 'y' && p.len() <= 2;
            }
        }
    }
    let (Ok(d), Ok(m), Ok(y)) = (
        day.parse::<u32>(),
        month.parse::<u32>(),
        year.parse::<i16>(),
    ) else {
        return Err(no_match());
    };
    // two-digit years name 1969-2068, as strftime's %y does
    let full_year = match (two_digit, y) {
        (true, 0..=68) => 2000 + y,
        (true, _) => 1900 + y,
        (false, _) => y,
    };
    let (Ok(d8), Ok(m8)) = (i8::try_from(d), i8::try_from(m)) else {
        return Err(no_match());
    };
    if jiff::civil::Date::new(full_year, m8, d8).is_err() {
        return Err(format!(
            "`{}` is not a calendar date (day {d} of month {m} of {full_year})",
            excerpt(value)
        ));
    }
    Ok((d, m, year))
}

/// A chronological sort key of `value` in date `format` (year as written, so two-digit
/// years order within one century), or None when the format or value is not a date.
pub fn date_key(value: &str, format: &str) -> Option<u64> {
    let (fields, _) = date_fields(format).ok()?;
    let (d, m, year) = date_parts(value, &fields).ok()?;
    let y: u64 = year.parse().ok()?;
    Some(y * 10_000 + m as u64 * 100 + d as u64)
}

fn date_rows(values: &[String], format: &str, file: &str, key: &str) -> Result<Vec<Vec<String>>> {
    let (fields, sep) =
        date_fields(format).map_err(|e| Error::config(file, format!("{key}.format"), e))?;
    let mut rows = Vec::with_capacity(values.len());
    for v in values {
        let (_, m, year) = date_parts(v, &fields)
            .map_err(|e| Error::config(file, key, format!("{e} `{format}`")))?;
        rows.push(vec![
            v.clone(),
            format!("{m:02}{sep}{year}"),
            year.to_owned(),
        ]);
    }
    Ok(with_top(rows, true))
}

fn group_rows(
    values: &[String],
    levels: &[BTreeMap<String, Vec<String>>],
    file: &str,
    key: &str,
) -> Result<Vec<Vec<String>>> {
    let mut rows: Vec<Vec<String>> = values.iter().map(|v| vec![v.clone()]).collect();
    for (l, groups) in levels.iter().enumerate() {
        let parent = group_of(groups, file, &format!("{key}.levels[{l}]"))?;
        for row in &mut rows {
            let below = row.last().expect("non-empty row").clone();
            let label = parent.get(below.as_str()).ok_or_else(|| {
                Error::config(
                    file,
                    format!("{key}.levels[{l}]"),
                    format!("no group contains `{}`", excerpt(&below)),
                )
            })?;
            row.push((*label).to_owned());
        }
    }
    Ok(with_top(rows, false))
}

/// Each member's group label, from `label → members`; a member in two groups is an error
/// at config key `at`.
fn group_of<'g>(
    groups: &'g BTreeMap<String, Vec<String>>,
    file: &str,
    at: &str,
) -> Result<FxHashMap<&'g str, &'g str>> {
    let mut group_of: FxHashMap<&str, &str> = FxHashMap::default();
    for (label, members) in groups {
        for m in members {
            if let Some(other) = group_of.insert(m, label) {
                return Err(Error::config(
                    file,
                    at,
                    format!(
                        "`{}` is in both groups `{}` and `{}`",
                        excerpt(m),
                        excerpt(other),
                        excerpt(label)
                    ),
                ));
            }
        }
    }
    Ok(group_of)
}

fn partition_hierarchy(
    values: &[String],
    partitions: &BTreeMap<String, BTreeMap<String, Vec<String>>>,
    file: &str,
    key: &str,
) -> Result<Hierarchy> {
    let mut rows: Vec<Vec<String>> = values.iter().map(|v| vec![v.clone()]).collect();
    let mut names = Vec::with_capacity(partitions.len());
    for (name, groups) in partitions {
        let at = format!("{key}.partitions.{name}");
        let group_of = group_of(groups, file, &at)?;
        for row in &mut rows {
            let label = group_of.get(row[0].as_str()).ok_or_else(|| {
                Error::config(
                    file,
                    &at,
                    format!("no group contains `{}`", excerpt(&row[0])),
                )
            })?;
            row.push((*label).to_owned());
        }
        names.push(name.clone());
    }
    Hierarchy::from_partitions(&rows, &names, Path::new(file)).map_err(|e| match e {
        Error::Data { message, .. } => Error::config(file, format!("{key}.partitions"), message),
        other => other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    fn blood() -> Builder {
        let spec = r#"
            kind = "partitions"
            partitions.split_ab = { "A|B" = ["A", "B"], "O|AB" = ["O", "AB"] }
            partitions.split_ao = { "A|O" = ["A", "O"], "B|AB" = ["B", "AB"] }
        "#;
        toml::from_str(spec).unwrap()
    }

    #[test]
    fn blood_type_partitions_form_a_poset() {
        let h = blood()
            .build(&strings(&["A", "B", "O", "AB"]), "c.toml", "k")
            .unwrap();
        assert_eq!(h.levels(), 4);
        assert!(!h.is_chain());
        let names: Vec<String> = (0..4).map(|l| h.level_name(l)).collect();
        assert_eq!(names, ["values", "split_ab", "split_ao", "*"]);
        assert!(h.refines(0, 1) && h.refines(0, 2) && h.refines(1, 3) && h.refines(2, 3));
        assert!(!h.refines(1, 2) && !h.refines(2, 1));
        assert_eq!(h.successors(0), &[1, 2]);
        assert_eq!(h.successors(1), &[3]);
        assert_eq!(h.successors(2), &[3]);
        assert!(h.successors(3).is_empty());
        let a = h.leaf("A").unwrap();
        assert_eq!(h.label(1, h.code(1, a)), "A|B");
        assert_eq!(h.label(2, h.code(2, a)), "A|O");
        // a missing marker stays apart below the top
        let h = h.with_missing(&strings(&["?"])).unwrap();
        assert!(!h.is_chain());
        let q = h.leaf("?").unwrap();
        assert_eq!(h.group_size(1, h.code(1, q)), 1);
        assert_eq!(h.label(3, h.code(3, q)), "*");
    }

    #[test]
    fn partitions_errors_name_the_key() {
        let err = blood()
            .build(
                &strings(&["A", "B", "O", "AB", "X"]),
                "c.toml",
                "attributes.b.hierarchy",
            )
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("attributes.b.hierarchy.partitions.split_ab"),
            "{err}"
        );
        assert!(err.contains("no group contains `X`"), "{err}");
        let same = r#"
            kind = "partitions"
            partitions.p = { "x" = ["A", "B"], "y" = ["O"] }
            partitions.q = { "u" = ["A", "B"], "v" = ["O"] }
        "#;
        let err = toml::from_str::<Builder>(same)
            .unwrap()
            .build(&strings(&["A", "B", "O"]), "c.toml", "k")
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("c.toml: config key `k.partitions`: ")
                && err.contains("`p` and `q` group the values identically"),
            "{err}"
        );
        // nested partitions make a chain
        let nested = r#"
            kind = "partitions"
            partitions.p = { "x" = ["A", "B"], "y" = ["O"] }
        "#;
        let h = toml::from_str::<Builder>(nested)
            .unwrap()
            .build(&strings(&["A", "B", "O"]), "c.toml", "k")
            .unwrap();
        assert!(h.is_chain() && h.levels() == 3);
    }

    #[test]
    fn rejects_non_coarsening_with_location() {
        let rows = vec![
            strings(&["a", "x", "*"]),
            strings(&["b", "x", "*"]),
            strings(&["c", "y", "*"]),
        ];
        assert!(Hierarchy::from_rows(&rows, Path::new("h.csv"), None).is_ok());
        let rows = vec![strings(&["a", "x", "p"]), strings(&["b", "x", "q"])];
        let err = Hierarchy::from_rows(&rows, Path::new("h.csv"), None)
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("h.csv:2:3"), "{err}");
        assert!(err.contains("not a coarsening"), "{err}");
    }

    #[test]
    fn rejects_ragged_and_conflicting_rows() {
        let rows = vec![strings(&["a", "x"]), strings(&["b"])];
        assert!(Hierarchy::from_rows(&rows, Path::new("h"), None)
            .unwrap_err()
            .to_string()
            .contains("h:2"));
        let rows = vec![strings(&["a", "x"]), strings(&["a", "y"])];
        assert!(Hierarchy::from_rows(&rows, Path::new("h"), None).is_err());
        let rows = vec![strings(&["a", "x"]), strings(&["a", "x"])];
        assert_eq!(
            Hierarchy::from_rows(&rows, Path::new("h"), None)
                .unwrap()
                .leaf_count(),
            1
        );
    }

    #[test]
    fn intervals_follow_the_papers_height_example() {
        let b = Builder::Intervals {
            widths: vec![5.0, 10.0, 20.0],
        };
        let h = b
            .build(&strings(&["160", "167", "175"]), "c.toml", "h")
            .unwrap();
        assert_eq!(h.levels(), 5);
        let leaf = h.leaf("167").unwrap();
        assert_eq!(h.label(1, h.code(1, leaf)), "[165,170)");
        assert_eq!(h.label(2, h.code(2, leaf)), "[160,170)");
        assert_eq!(h.label(3, h.code(3, leaf)), "[160,180)");
        assert_eq!(h.label(4, h.code(4, leaf)), "*");
        let bad = Builder::Intervals {
            widths: vec![5.0, 7.0],
        };
        assert!(bad.build(&strings(&["1"]), "c.toml", "h").is_err());
        assert!(b.build(&strings(&["tall"]), "c.toml", "h").is_err());
    }

    #[test]
    fn mask_and_date() {
        let h = Builder::Mask {}
            .build(&strings(&["24126", "24129"]), "c", "z")
            .unwrap();
        assert_eq!(h.levels(), 6);
        assert_eq!(h.label(3, h.code(3, 0)), "24***");
        assert_eq!(h.label(5, h.code(5, 1)), "*****");
        let h = Builder::Date {
            format: "%d/%m/%y".into(),
        }
        .build(&strings(&["24/09/56", "06/09/56"]), "c", "d")
        .unwrap();
        assert_eq!(h.levels(), 4);
        assert_eq!(h.label(1, h.code(1, 0)), "09/56");
        assert_eq!(h.cardinality(1), 1);
        assert_eq!(h.label(2, 0), "56");
        assert!(Builder::Date {
            format: "%d/%m/%y".into()
        }
        .build(&strings(&["31/13/56"]), "c", "d")
        .is_err());
    }

    #[test]
    fn impossible_dates_are_refused() {
        let short = Builder::Date {
            format: "%d/%m/%y".into(),
        };
        let long = Builder::Date {
            format: "%d.%m.%Y".into(),
        };
        for ok in ["29/02/56", "29/02/00", "31/12/99", "1/1/70"] {
            assert_eq!(short.check_value(ok), Ok(()), "{ok}");
        }
        for bad in ["31/02/56", "29/02/57", "31/04/20", "00/01/20", "32/01/20"] {
            let err = short.check_value(bad).unwrap_err();
            assert!(err.contains("not a calendar date"), "{bad}: {err}");
            assert!(short.build(&strings(&[bad]), "c", "d").is_err(), "{bad}");
        }
        assert!(long.check_value("29.02.2000").is_ok());
        assert!(long.check_value("29.02.1900").is_err());
        assert!(long.check_value("01.01.99999").is_err());
        let err = short.check_value("someday").unwrap_err();
        assert!(
            err.contains("does not match the date format `%d/%m/%y`"),
            "{err}"
        );
        // labels are unchanged for valid dates
        let h = short
            .build(&strings(&["29/02/56", "01/03/56"]), "c", "d")
            .unwrap();
        assert_eq!(h.label(1, h.code(1, 0)), "02/56");
        assert_eq!(h.label(2, h.code(2, 1)), "56");
        assert_eq!(date_key("29/02/56", "%d/%m/%y"), Some(560229));
        assert_eq!(date_key("30/02/56", "%d/%m/%y"), None);
    }

    #[test]
    fn groups_need_full_coverage() {
        let mut level = BTreeMap::new();
        level.insert("AB|O".to_string(), strings(&["AB", "O"]));
        level.insert("A|B".to_string(), strings(&["A", "B"]));
        let b = Builder::Groups {
            levels: vec![level],
        };
        let h = b
            .build(&strings(&["A", "B", "O", "AB"]), "c", "blood")
            .unwrap();
        assert_eq!(h.levels(), 3);
        assert_eq!(h.group_size(1, h.code(1, h.leaf("O").unwrap())), 2);
        let err = b
            .build(&strings(&["A", "X"]), "c", "blood")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("blood.levels[0]") && err.contains("`X`"),
            "{err}"
        );
    }

    #[test]
    fn missing_values_get_their_own_group_below_the_top() {
        let b = Builder::Intervals { widths: vec![10.0] };
        let h = b
            .build(&strings(&["12", "17"]), "c", "age")
            .unwrap()
            .with_missing(&strings(&["?"]))
            .unwrap();
        let m = h.leaf("?").unwrap();
        assert_eq!(h.label(1, h.code(1, m)), "?");
        assert_eq!(h.label(2, h.code(2, m)), "*");
        assert_eq!(h.group_size(1, h.code(1, m)), 1);
        assert_eq!(h.cardinality(2), 1);
    }
}
