//! The release plan: what the search decided, in the terms an engine applies to each source
//! row without the search's encoding.
//!
//! Per released column (every source column but the identifying ones, in source order):
//! kept as it is, or a quasi-identifier generalized through a map from each of its source
//! values to its group at the chosen level, with the groups' labels. A row's class is the
//! tuple of its quasi-identifiers' groups; the classes the search suppressed are listed by
//! that tuple. And for the audit: the classes released with their rows, the rows
//! suppressed, the sensitive columns' distributions over the whole source.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::algorithm::problem::Problem;
use crate::data::table::scan::Batch;
use crate::data::table::CsvFormat;
use crate::data::{Role, SUPPRESSED};
use crate::error::{excerpt, EngineError, Result};
use crate::release::audit::CountExpected;
use crate::release::{RowOrder, SuppressedRows};

/// How a released column's cells are made from the source's.
#[derive(Debug, Clone)]
enum Cells {
    /// The source's cell as it is.
    Kept,
    /// The label of the source value's group.
    Generalized {
        groups: FxHashMap<String, u32>,
        labels: Vec<String>,
    },
}

#[derive(Debug, Clone)]
struct Column {
    /// Index in the source's header.
    source: usize,
    cells: Cells,
    /// Shown by a suppressed row.
    public: bool,
}

/// A quasi-identifier's generalization: the group of each source value, the groups' labels.
pub(crate) type Generalization<'a> = (&'a FxHashMap<String, u32>, &'a [String]);

/// The release of one transformation, as an engine applies it (see the module docs).
#[derive(Debug, Clone)]
pub struct ReleasePlan {
    header: Vec<String>,
    columns: Vec<Column>,
    /// Indices in `columns` of the quasi-identifiers.
    quasi: Vec<usize>,
    suppressed_classes: FxHashSet<Box<[u32]>>,
    /// Whether suppressed rows are left out (else written with `*`).
    pub(crate) dropped: bool,
    /// The row order.
    pub(crate) order: RowOrder,
    /// The CSV dialect written.
    pub(crate) format: CsvFormat,
    // what the audit checks the written file against
    classes: FxHashMap<Vec<String>, u64>,
    suppressed_rows: u64,
    source_rows: u64,
    quasi_names: Vec<String>,
    public_names: Vec<String>,
    sensitive_names: Vec<String>,
    references: Vec<Vec<(String, f64)>>,
}

impl ReleasePlan {
    /// The plan releasing `problem` (searched on the frequency set of a source with header
    /// `source_header`, whose columns have roles `roles` and public flags `public`) at
    /// `levels`.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        problem: &Problem,
        levels: &[u8],
        source_header: &[String],
        roles: &[Role],
        public: &[bool],
        suppressed: SuppressedRows,
        order: RowOrder,
        format: CsvFormat,
    ) -> Result<ReleasePlan> {
        problem.check_levels(levels)?;
        let data = &problem.data;
        let set = &data.table;
        let weight = |r: usize| data.weights().map_or(1, |w| w[r] as u64);
        let mut header = Vec::new();
        let mut columns = Vec::new();
        let mut quasi = Vec::new();
        let mut sensitive_names = Vec::new();
        let mut references = Vec::new();
        for (c, name) in source_header.iter().enumerate() {
            if roles[c] == Role::Identifying {
                continue;
            }
            let in_set = set.column_index(name);
            let cells = match (roles[c], in_set) {
                (Role::QuasiIdentifying, Some(sc)) => {
                    let qi = data
                        .quasi
                        .iter()
                        .position(|q| q.name == *name)
                        .expect("a quasi-identifier of the dataset");
                    let q = &data.quasi[qi];
                    let level = levels[qi] as usize;
                    let mut groups = FxHashMap::default();
                    for r in 0..set.rows() {
                        groups
                            .entry(set.value(r, sc).to_owned())
                            .or_insert_with(|| q.hierarchy.code(level, q.leaves[r]));
                    }
                    let labels = (0..q.hierarchy.cardinality(level) as u32)
                        .map(|g| q.hierarchy.label(level, g).to_owned())
                        .collect();
                    quasi.push(columns.len());
                    Cells::Generalized { groups, labels }
                }
                (Role::Sensitive, Some(sc)) => {
                    let mut freq: FxHashMap<&str, u64> = FxHashMap::default();
                    for r in 0..set.rows() {
                        *freq.entry(set.value(r, sc)).or_default() += weight(r);
                    }
                    sensitive_names.push(name.clone());
                    references.push(crate::release::audit::distribution(freq));
                    Cells::Kept
                }
                _ => Cells::Kept,
            };
            header.push(name.clone());
            columns.push(Column {
                source: c,
                cells,
                public: public[c],
            });
        }
        let hierarchies = problem.hierarchies();
        let classes = problem.classes(levels);
        let suppressed_class = problem.suppressed(levels, &classes);
        let row_class = problem.snapshot.row_classes(&hierarchies, &classes, levels);
        let mut plan = ReleasePlan {
            header,
            quasi_names: quasi
                .iter()
                .map(|&i| source_header[columns[i].source].clone())
                .collect(),
            public_names: columns
                .iter()
                .filter(|c| c.public)
                .map(|c| source_header[c.source].clone())
                .collect(),
            columns,
            quasi,
            suppressed_classes: FxHashSet::default(),
            dropped: suppressed == SuppressedRows::Drop,
            order,
            format,
            classes: FxHashMap::default(),
            suppressed_rows: 0,
            source_rows: data.persons(),
            sensitive_names,
            references,
        };
        let qi_set: Vec<usize> = plan
            .quasi_names
            .iter()
            .map(|n| {
                set.column_index(n)
                    .expect("a quasi-identifier of the dataset")
            })
            .collect();
        for r in 0..set.rows() {
            let key: Box<[u32]> = plan
                .quasi
                .iter()
                .zip(&qi_set)
                .map(|(&i, &sc)| match &plan.columns[i].cells {
                    Cells::Generalized { groups, .. } => groups[set.value(r, sc)],
                    Cells::Kept => unreachable!("a quasi-identifier is generalized"),
                })
                .collect();
            if suppressed_class[row_class[r] as usize] {
                plan.suppressed_rows += weight(r);
                plan.suppressed_classes.insert(key);
            } else {
                let labels = plan.labels(&key);
                *plan.classes.entry(labels).or_default() += weight(r);
            }
        }
        Ok(plan)
    }

    /// The labels of the class `key`.
    fn labels(&self, key: &[u32]) -> Vec<String> {
        self.quasi
            .iter()
            .zip(key)
            .map(|(&i, &g)| match &self.columns[i].cells {
                Cells::Generalized { labels, .. } => labels[g as usize].clone(),
                Cells::Kept => unreachable!("a quasi-identifier is generalized"),
            })
            .collect()
    }

    /// The released columns' names.
    pub fn header(&self) -> &[String] {
        &self.header
    }

    /// The source columns the plan reads, in the order `cells` expects
    /// them in a batch: the released ones.
    pub fn reads(&self) -> Vec<usize> {
        self.columns.iter().map(|c| c.source).collect()
    }

    /// Rows the search suppressed.
    pub fn suppressed_rows(&self) -> u64 {
        self.suppressed_rows
    }

    /// The released cells of `batch`'s row `row` (a batch of the columns
    /// [`reads`](Self::reads) names), pushed on `out`; returns whether the row is
    /// suppressed. `key` is scratch space. A value the frequency set did not hold means the
    /// source changed: an error naming `source`.
    pub(crate) fn cells<'b>(
        &'b self,
        batch: &'b Batch,
        row: usize,
        key: &mut Vec<u32>,
        out: &mut Vec<&'b str>,
        source: &std::path::Path,
    ) -> Result<bool> {
        key.clear();
        for &i in &self.quasi {
            let value = batch.value(row, i);
            match &self.columns[i].cells {
                Cells::Generalized { groups, .. } => match groups.get(value) {
                    Some(&g) => key.push(g),
                    None => {
                        return Err(EngineError::Changed {
                            path: source.to_owned(),
                            column: self.header[i].clone(),
                            value: excerpt(value).into_owned(),
                        }
                        .into())
                    }
                },
                Cells::Kept => unreachable!("a quasi-identifier is generalized"),
            }
        }
        out.clear();
        let suppressed = self.suppressed_classes.contains(&key[..]);
        if suppressed {
            out.extend(self.columns.iter().enumerate().map(|(i, c)| {
                if c.public {
                    batch.value(row, i)
                } else {
                    SUPPRESSED
                }
            }));
            return Ok(true);
        }
        let mut q = 0;
        for (i, c) in self.columns.iter().enumerate() {
            match &c.cells {
                Cells::Kept => out.push(batch.value(row, i)),
                Cells::Generalized { labels, .. } => {
                    out.push(&labels[key[q] as usize]);
                    q += 1;
                }
            }
        }
        Ok(false)
    }

    /// Each released column, for an engine that builds the cells elsewhere (in SQL): its
    /// index in the source's header, whether it is public, and for a quasi-identifier
    /// the group of each source value and the groups' labels.
    #[cfg_attr(not(feature = "spark"), allow(dead_code))]
    pub(crate) fn released_columns(
        &self,
    ) -> impl Iterator<Item = (usize, bool, Option<Generalization<'_>>)> {
        self.columns.iter().map(|c| {
            let generalized = match &c.cells {
                Cells::Kept => None,
                Cells::Generalized { groups, labels } => Some((groups, &labels[..])),
            };
            (c.source, c.public, generalized)
        })
    }

    /// The classes suppressed, each as its quasi-identifiers' groups (in the order of
    /// [`released_columns`](Self::released_columns)' quasi-identifiers).
    #[cfg_attr(not(feature = "spark"), allow(dead_code))]
    pub(crate) fn suppressed_classes(&self) -> impl Iterator<Item = &[u32]> {
        self.suppressed_classes.iter().map(|k| &k[..])
    }

    /// What the audit of the written file compares its counts with.
    pub fn expected<'a>(&'a self, models: &'a [crate::criteria::ModelSpec]) -> CountExpected<'a> {
        CountExpected {
            quasi: &self.quasi_names,
            public: &self.public_names,
            sensitive: &self.sensitive_names,
            models,
            references: &self.references,
            classes: &self.classes,
            suppressed_rows: self.suppressed_rows,
            source_rows: self.source_rows,
            dropped: self.dropped,
            presence: None,
        }
    }
}
