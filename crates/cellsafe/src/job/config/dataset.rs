//! Building the [`Dataset`] of a table: each column's role, the quasi-identifiers'
//! hierarchies (read or built, with the missing markers), the research subset, the
//! confidential formulas and the public flags, then the models and metric bound to it.
//! Every error names the config key at fault.

use std::path::PathBuf;

use super::{single_byte, Config, FLAT};
use crate::algorithm::problem::MAX_LATTICE;
use crate::criteria::Model;
use crate::data::table::Table;
use crate::data::Role;
use crate::error::{Error, Location, Result};
use crate::framework::dataset::Dataset;
use crate::hierarchy::{Builder, Hierarchy, HierarchySpec};
use crate::metric::Metric;

impl Config {
    /// Resolves `table`'s roles, builds its hierarchies and confidential formulas, and
    /// checks that the models and metric bind to it: a dataset ready to anonymize. Errors
    /// name the config key at fault.
    pub fn dataset(&self, table: Table) -> Result<Dataset> {
        self.dataset_with(table, false)
    }

    /// [`dataset`](Self::dataset); with `personal`, confidential formulas may mention
    /// quasi-identifiers (decided by each person's own value, as only the gatekeeper does).
    pub(crate) fn dataset_with(&self, table: Table, personal: bool) -> Result<Dataset> {
        self.check_attribute_columns(&table)?;
        self.dataset_of(table, personal, None)
    }

    /// The dataset of a frequency set counted by an engine: its quasi-identifier and
    /// sensitive columns, each row weighted by the rows it stands for. The attributes were
    /// checked against the source's header (see `source_roles`).
    pub(crate) fn frequency_dataset(&self, set: crate::engine::FrequencySet) -> Result<Dataset> {
        self.dataset_of(set.table, false, Some(set.weights))
    }

    /// The dataset of `table`, whose rows stand for `weights` persons each when given (a
    /// frequency set's; a research subset then keeps them for its population too).
    fn dataset_of(
        &self,
        table: Table,
        personal: bool,
        weights: Option<Vec<u32>>,
    ) -> Result<Dataset> {
        let file = self.file_name();
        let hdelim = single_byte(
            &self.input.hierarchy_delimiter,
            &file,
            "input.hierarchy_delimiter",
        )?;
        let mut roles = Vec::new();
        let mut hierarchies = Vec::new();
        let mut sensitive_hierarchies = Vec::new();
        for (column, name) in table.header().iter().enumerate() {
            let spec = self.attributes.get(name);
            let con_column = self
                .safety
                .as_ref()
                .and_then(|s| s.column.as_deref())
                .is_some_and(|c| c == name);
            // the subset's flags say who is in the study: never released either
            let flag_column = self
                .input
                .subset
                .as_ref()
                .and_then(|s| s.column.as_deref())
                .is_some_and(|c| c == name);
            // so does the key column of a file of keys: it names the members
            let key_column = self
                .input
                .subset
                .as_ref()
                .filter(|s| s.file.is_some())
                .and_then(|s| s.key.as_deref())
                .is_some_and(|c| c == name);
            if (flag_column || key_column) && spec.is_some_and(|s| s.role != Role::Identifying) {
                return Err(Error::config(
                    &file,
                    if flag_column {
                        "input.subset.column"
                    } else {
                        "input.subset.key"
                    },
                    format!(
                        "column `{name}` says who is in the research subset, so it must not \
                         be released: give it role \"identifying\" or leave it unlisted"
                    ),
                ));
            }
            let flag_column = flag_column || key_column;
            // the column of CON sets says who holds what confidential: never released
            let role = match spec {
                Some(s) if con_column && s.role != Role::Identifying => {
                    return Err(Error::config(
                        &file,
                        "safety.column",
                        format!(
                            "column `{name}` holds what persons keep confidential, so it must \
                             not be released: give it role \"identifying\" or leave it unlisted"
                        ),
                    ))
                }
                Some(s) => s.role,
                None if con_column || flag_column => Role::Identifying,
                None => self.input.default_role,
            };
            roles.push(role);
            let key = format!("attributes.{name}.hierarchy");
            let build = |h: &HierarchySpec| self.hierarchy(&table, column, h, hdelim);
            match (role, spec.and_then(|s| s.hierarchy.as_ref())) {
                (Role::QuasiIdentifying, Some(h)) => hierarchies.push(build(h)?),
                // local recoding shows intervals of numbers and sets of other values
                (Role::QuasiIdentifying, None) if self.search.algorithm.is_local() => {
                    hierarchies.push(build(&FLAT)?)
                }
                (Role::QuasiIdentifying, None) => {
                    return Err(Error::config(
                        &file,
                        key,
                        format!(
                            "the quasi-identifier `{name}` needs a hierarchy for a \
                             full-domain search (algorithm = \"{}\"); only local recoding \
                             (\"mondrian\", \"lgb\") needs none",
                            self.search.algorithm.name()
                        ),
                    ))
                }
                (Role::Sensitive, h) => {
                    sensitive_hierarchies.push(h.map(build).transpose()?.map(|x| x.0))
                }
                _ => {}
            }
        }
        let members = self
            .input
            .subset
            .as_ref()
            .map(|s| self.subset_rows(s, &table))
            .transpose()?;
        // a research subset: the dataset of the whole population, narrowed to the members
        let mut weights = weights;
        let (table, population) = match members {
            None => (table, None),
            Some(members) => {
                let mut whole = Dataset::new(
                    table,
                    roles.clone(),
                    hierarchies.clone(),
                    sensitive_hierarchies.clone(),
                )?;
                if let Some(w) = weights.take() {
                    whole = whole.with_weights(w)?;
                }
                let population = whole.research_subset(members)?;
                (population.table.clone(), Some(population))
            }
        };
        let confidentiality = self
            .safety
            .as_ref()
            .map(|spec| {
                crate::data::confidentiality::setup::build(spec, &table, &roles, &file, |p| {
                    self.resolve(p)
                })
            })
            .transpose()?;
        if let Some((id, column)) = confidentiality
            .as_ref()
            .filter(|_| !personal)
            .and_then(|c| c.personal_formula())
        {
            return Err(Error::config(
                &file,
                format!("safety.formulas.{id}"),
                format!(
                    "the formula mentions the quasi-identifier `{column}`; formulas over public \
                     attributes are decided by each person's own value, which only the \
                     gatekeeper (`cellsafe serve`) does"
                ),
            ));
        }
        let mut public = Vec::with_capacity(roles.len());
        for (name, role) in table.header().iter().zip(&roles) {
            let marked = self.attributes.get(name).is_some_and(|s| s.public);
            if marked && *role != Role::Insensitive {
                return Err(Error::config(
                    &file,
                    format!("attributes.{name}.public"),
                    "only an insensitive column can be public",
                ));
            }
            public.push(marked);
        }
        let mut data = match population {
            Some(data) => data.with_public(public)?,
            None => Dataset::new(table, roles, hierarchies, sensitive_hierarchies)?
                .with_public(public)?,
        };
        if let Some(c) = confidentiality {
            data = data.with_confidentiality(c);
        }
        // after the formulas, which a weighted dataset refuses (a subset took them already)
        if let Some(w) = weights {
            data = data.with_weights(w)?;
        }
        if data.quasi.is_empty() {
            return Err(Error::config(
                &file,
                "attributes",
                "no attribute has role \"quasi-identifying\"",
            ));
        }
        if data.rows() == 0 {
            return Err(Error::data(
                Location::at(data.table.source(), 1, None),
                "the file has a header but no data rows",
            ));
        }
        let size = data
            .max_levels()
            .iter()
            .try_fold(1usize, |acc, &m| acc.checked_mul(m as usize + 1));
        if size.is_none_or(|n| n > MAX_LATTICE) {
            return Err(Error::config(
                &file,
                "attributes",
                format!(
                    "the generalization lattice has more than {MAX_LATTICE} transformations; \
                     use fewer quasi-identifiers or shorter hierarchies"
                ),
            ));
        }
        for (i, m) in self.privacy.iter().enumerate() {
            Model::bind(m, &data).map_err(|e| e.in_config(&file, i))?;
        }
        Metric::bind(&self.metric, &data).map_err(|e| e.in_config(&file))?;
        Ok(data)
    }

    /// The `[input] hierarchy_delimiter` byte.
    pub(crate) fn hierarchy_delimiter(&self) -> Result<u8> {
        single_byte(
            &self.input.hierarchy_delimiter,
            &self.file_name(),
            "input.hierarchy_delimiter",
        )
    }

    /// The hierarchy `[attributes.NAME] hierarchy` gives column `name` of `table` (read
    /// from its file or built on the column's values, with the configured missing
    /// markers), as the job would build it; None when the attribute has no hierarchy.
    /// Whether every value of the column is covered is not checked here: see
    /// [`Hierarchy::generalize`]. Errors name the config key.
    pub fn attribute_hierarchy(&self, table: &Table, name: &str) -> Result<Option<Hierarchy>> {
        let Some(spec) = self.attributes.get(name).and_then(|a| a.hierarchy.as_ref()) else {
            return Ok(None);
        };
        let Some(column) = table.column_index(name) else {
            return Err(Error::config(
                self.file_name(),
                format!("attributes.{name}"),
                format!("the table has no column `{name}`"),
            ));
        };
        let hdelim = self.hierarchy_delimiter()?;
        self.hierarchy(table, column, spec, hdelim)
            .map(|(h, _)| Some(h))
    }

    /// The hierarchy `h` of `table`'s column `column` (read from a file or built), with
    /// the configured missing markers as groups of their own, and where it came from.
    pub(crate) fn hierarchy(
        &self,
        table: &Table,
        column: usize,
        h: &HierarchySpec,
        hdelim: u8,
    ) -> Result<(Hierarchy, PathBuf)> {
        let file = self.file_name();
        let name = &table.header()[column];
        let key = format!("attributes.{name}.hierarchy");
        let values = table.dictionary(column).values();
        let missing: Vec<String> = self
            .input
            .missing
            .iter()
            .filter(|m| values.contains(m))
            .cloned()
            .collect();
        let (hierarchy, source) = match h {
            HierarchySpec::File(p) => {
                let p = self.resolve(p);
                (Hierarchy::read_arx(&p, hdelim)?, p)
            }
            HierarchySpec::Builder(b) => {
                let present: Vec<String> = values
                    .iter()
                    .filter(|v| !missing.contains(v))
                    .cloned()
                    .collect();
                b.check_column(table, column, &missing, &key)?;
                let built = if present.is_empty() {
                    Builder::Suppress {}.build(&missing, &file, &key)?
                } else {
                    b.build(&present, &file, &key)?
                };
                (built, PathBuf::from(format!("built by {key}")))
            }
        };
        Ok((hierarchy.with_missing(&missing)?, source))
    }
}
