//! `algorithm = "lgb"` (paper 004): reads the config's semi-sensitive attributes, their
//! flag columns and the per-attribute protections from `[[privacy]]`, runs local
//! generalization and bucketization in memory ([`release_lgb`]), and writes the audited
//! main table, one bucket table per bucketized attribute (`STEM.ATTRIBUTE.csv` beside the
//! main table), the optional mapping and the report, all or nothing.

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::config::{Config, SensitivitySpec};
use super::{json, write_mapping, Outputs};
use crate::algorithm::lgb::{Column, LgbData, LgbSpec, Protection};
use crate::anonymizer::lgb::{release_lgb, LgbFigures};
use crate::anonymizer::Timings;
use crate::criteria::{Distance, ModelSpec};
use crate::data::table::Table;
use crate::data::Role;
use crate::error::{Error, Location, ProblemError, Result};
use crate::observer::Observer;
use crate::release::audit::Audit;
use crate::release::output::{check_paths, Transaction};
use crate::release::RowOrder;

/// Seed of the random aggregate queries (fixed, so that releases compare on one batch).
pub const QUERY_SEED: u64 = 1;

/// A bucket table written.
#[derive(Debug, Clone, Serialize)]
pub struct BucketFile {
    /// The attribute.
    pub attribute: String,
    /// Where its table went.
    pub path: String,
}

/// The report of an LGB job.
#[derive(Debug, Clone, Serialize)]
pub struct LgbReport {
    /// Always `lgb`.
    pub algorithm: &'static str,
    /// Whether tables were released.
    pub found: bool,
    /// Rows per local group, at least.
    pub k: usize,
    /// The main table's path.
    pub output: Option<String>,
    /// The bucket tables' paths.
    pub bucket_tables: Vec<BucketFile>,
    /// Groups, buckets, C_DM, NCP.
    pub figures: Option<LgbFigures>,
    /// The audit of what was written.
    pub audit: Option<Audit>,
    /// The row shuffle's seed (`None`: input order kept).
    pub seed: Option<u64>,
    /// Notes for the custodian.
    pub warnings: Vec<String>,
    /// Seconds per phase.
    pub timings: Timings,
    /// Seconds in all.
    pub seconds: f64,
}

/// Where the bucket table of `attribute` goes, beside the main table `table`.
pub fn bucket_path(table: &Path, attribute: &str) -> PathBuf {
    let stem = table
        .file_stem()
        .map_or("released".into(), |s| s.to_string_lossy().into_owned());
    let safe: String = attribute
        .chars()
        .map(|c| {
            if c.is_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    table.with_file_name(format!("{stem}.{safe}.csv"))
}

/// The bucketized attributes the config names (semi-sensitive, then sensitive).
fn bucketized(config: &Config) -> Vec<String> {
    let named = |role: Role| {
        config
            .attributes
            .iter()
            .filter(move |(_, s)| s.role == role)
            .map(|(n, _)| n.clone())
    };
    named(Role::SemiSensitive)
        .chain(named(Role::Sensitive))
        .collect()
}

/// Parses one flag cell: `1`/`0`, `true`/`false`, `yes`/`no` (any case).
fn flag(value: &str) -> Option<bool> {
    match value.trim().to_ascii_lowercase().as_str() {
        "1" | "true" | "yes" => Some(true),
        "0" | "false" | "no" => Some(false),
        _ => None,
    }
}

/// Per dictionary code of `table`'s column `fc` (named `f`), the flag it means; an
/// error at the first cell that is no flag.
fn flag_codes(table: &Table, fc: usize, f: &str) -> Result<Vec<bool>> {
    let dict = table.dictionary(fc);
    let mut by_code = Vec::with_capacity(dict.len());
    for (code, v) in dict.values().iter().enumerate() {
        by_code.push(flag(v).ok_or_else(|| {
            Error::data(
                Location::at(
                    table.source(),
                    dict.first_line(code as u32),
                    Some(fc as u64 + 1),
                ),
                format!("flag `{v}` of column `{f}` is not 1/0, true/false or yes/no"),
            )
        })?);
    }
    Ok(by_code)
}

/// The flags file of `spec`, and per row of `table` the row of the file with its key.
fn flags_file(
    config: &Config,
    spec: &SensitivitySpec,
    table: &Table,
) -> Result<(Table, Vec<usize>)> {
    let file = config.file_name();
    let path = config.resolve(&spec.file);
    let mask = Table::read_csv(&path, &config.csv_format()?)?;
    let key = &spec.key;
    let no_key = |what: &Path| {
        Error::config(
            &file,
            "input.sensitivity.key",
            format!("no column `{key}` in {}", what.display()),
        )
    };
    let dk = table
        .column_index(key)
        .ok_or_else(|| no_key(table.source()))?;
    let mk = mask
        .column_index(key)
        .ok_or_else(|| no_key(mask.source()))?;
    let mut row_of: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
    for r in 0..mask.rows() {
        let k = mask.value(r, mk);
        if row_of.insert(k, r).is_some() {
            return Err(Error::data(
                Location::at(mask.source(), mask.line(r), Some(mk as u64 + 1)),
                format!("key `{k}` appears twice in the flags file"),
            ));
        }
    }
    let of_row = (0..table.rows())
        .map(|r| {
            let k = table.value(r, dk);
            row_of.get(k).copied().ok_or_else(|| {
                Error::data(
                    Location::at(table.source(), table.line(r), Some(dk as u64 + 1)),
                    format!("key `{k}` has no row in {}", mask.source().display()),
                )
            })
        })
        .collect::<Result<Vec<_>>>()?;
    drop(row_of);
    Ok((mask, of_row))
}

/// The LGB input and parameters `config` describes for `table`. Errors name the key.
pub fn data(config: &Config, table: Table) -> Result<(LgbData, LgbSpec)> {
    let file = config.file_name();
    config.check_attribute_columns(&table)?;
    if config.input.subset.is_some() {
        return Err(Error::config(
            &file,
            "input.subset",
            "algorithm = \"lgb\" releases every row; a research subset (δ-presence) needs a \
             level-based search",
        ));
    }
    if matches!(
        config.input.default_role,
        Role::Sensitive | Role::SemiSensitive | Role::QuasiIdentifying
    ) {
        return Err(Error::config(
            &file,
            "input.default_role",
            "algorithm = \"lgb\" needs every quasi-identifying, semi-sensitive and \
             sensitive column named under [attributes]",
        ));
    }
    let header = table.header().to_vec();
    let mut roles: Vec<Role> = header
        .iter()
        .map(|h| {
            config
                .attributes
                .get(h)
                .map_or(config.input.default_role, |s| s.role)
        })
        .collect();
    // a separate flags file, read with the input's format: per data row, its flags row
    let mask = config
        .input
        .sensitivity
        .as_ref()
        .map(|s| flags_file(config, s, &table))
        .transpose()?;
    // the key of the flags file names persons: never released
    if let Some(s) = &config.input.sensitivity {
        if let Some(kc) = table.column_index(&s.key) {
            if config
                .attributes
                .get(&s.key)
                .is_some_and(|a| a.role != Role::Identifying)
            {
                return Err(Error::config(
                    &file,
                    format!("attributes.{}.role", s.key),
                    "the key of the flags file names persons: it must be identifying (never \
                     released) or unlisted",
                ));
            }
            roles[kc] = Role::Identifying;
        }
    }
    // flag columns: never released
    let mut flags: Vec<Option<Vec<bool>>> = vec![None; header.len()];
    for (name, spec) in &config.attributes {
        let key = format!("attributes.{name}.flag");
        match (&spec.flag, spec.role) {
            (None, Role::SemiSensitive) => {
                return Err(Error::config(
                    &file,
                    key,
                    "a semi-sensitive attribute needs `flag`: the column saying whose cells are \
                     sensitive",
                ))
            }
            (Some(_), role) if role != Role::SemiSensitive => {
                return Err(Error::config(
                    &file,
                    key,
                    "only a semi-sensitive attribute has a flag",
                ))
            }
            (Some(f), _) if mask.is_some() => {
                let (mask, of_row) = mask.as_ref().expect("some");
                let Some(fc) = mask.column_index(f) else {
                    return Err(Error::config(
                        &file,
                        key,
                        format!("no column `{f}` in {}", mask.source().display()),
                    ));
                };
                let c = table.column_index(name).expect("checked");
                let by_code = flag_codes(mask, fc, f)?;
                flags[c] = Some(
                    of_row
                        .iter()
                        .map(|&m| by_code[mask.codes(fc)[m] as usize])
                        .collect(),
                );
            }
            (Some(f), _) => {
                let Some(fc) = table.column_index(f) else {
                    return Err(Error::config(&file, key, format!("no column `{f}`")));
                };
                if config
                    .attributes
                    .get(f)
                    .is_some_and(|s| s.role != Role::Identifying)
                {
                    return Err(Error::config(
                        &file,
                        format!("attributes.{f}.role"),
                        "a flag column says who holds what sensitive: it must be identifying \
                         (never released) or unlisted",
                    ));
                }
                roles[fc] = Role::Identifying;
                let c = table.column_index(name).expect("checked");
                let by_code = flag_codes(&table, fc, f)?;
                flags[c] = Some(
                    table
                        .codes(fc)
                        .iter()
                        .map(|&x| by_code[x as usize])
                        .collect(),
                );
            }
            (None, _) => {}
        }
    }
    // k, and one protection per bucketized attribute
    let mut k = None;
    let mut protections: Vec<Option<Protection>> = vec![None; header.len()];
    for (i, model) in config.privacy.iter().enumerate() {
        let key = format!("privacy[{i}]");
        let (attribute, protection) = match model {
            ModelSpec::KAnonymity { k: x } => {
                k = Some(k.map_or(*x, |y: u32| y.max(*x)));
                continue;
            }
            ModelSpec::DistinctLDiversity { attribute, l } => (
                attribute,
                Protection::Diversity {
                    l: l.ceil().max(1.0) as usize,
                },
            ),
            ModelSpec::TCloseness {
                attribute,
                t,
                distance,
            } => {
                let ordered = match distance {
                    Distance::Equal => false,
                    Distance::Ordered => true,
                    Distance::Hierarchical => {
                        return Err(Error::config(
                            &file,
                            format!("{key}.distance"),
                            "algorithm = \"lgb\" takes the equal or ordered distance",
                        ))
                    }
                };
                (attribute, Protection::Closeness { t: *t, ordered })
            }
            _ => {
                return Err(Error::config(
                    &file,
                    format!("{key}.model"),
                    "algorithm = \"lgb\" takes k-anonymity, and distinct-l-diversity or \
                     t-closeness per semi-sensitive or sensitive attribute",
                ))
            }
        };
        let c = table
            .column_index(attribute)
            .filter(|&c| matches!(roles[c], Role::SemiSensitive | Role::Sensitive))
            .ok_or_else(|| {
                Error::config(
                    &file,
                    format!("{key}.attribute"),
                    format!("`{attribute}` is not a semi-sensitive or sensitive column"),
                )
            })?;
        if protections[c].replace(protection).is_some() {
            return Err(Error::config(
                &file,
                format!("{key}.attribute"),
                format!("`{attribute}` is protected twice: give it one model"),
            ));
        }
    }
    let Some(k) = k else {
        return Err(Error::config(
            &file,
            "privacy",
            "algorithm = \"lgb\" needs a k-anonymity model for the local groups",
        ));
    };
    let hdelim = config.hierarchy_delimiter()?;
    let mut columns = Vec::with_capacity(header.len());
    for (c, name) in header.iter().enumerate() {
        let spec = config.attributes.get(name);
        let hierarchy = match (roles[c], spec.and_then(|s| s.hierarchy.as_ref())) {
            (Role::QuasiIdentifying | Role::SemiSensitive, Some(h)) => {
                Some(config.hierarchy(&table, c, h, hdelim)?)
            }
            // local groups show the interval of their numbers, else the set of their values
            (Role::QuasiIdentifying | Role::SemiSensitive, None) => {
                Some(config.hierarchy(&table, c, &crate::job::config::FLAT, hdelim)?)
            }
            _ => None,
        };
        if matches!(roles[c], Role::SemiSensitive | Role::Sensitive) && protections[c].is_none() {
            return Err(Error::config(
                &file,
                format!("attributes.{name}"),
                "needs a [[privacy]] distinct-l-diversity or t-closeness model for its buckets",
            ));
        }
        columns.push(Column {
            role: roles[c],
            hierarchy,
            flags: flags[c].take(),
            protection: protections[c],
        });
    }
    if table.rows() == 0 {
        return Err(Error::data(
            Location::at(table.source(), 1, None),
            "the file has a header but no data rows",
        ));
    }
    let data = LgbData::new(table, columns).map_err(|e| match e {
        Error::Problem(p) => Error::config(&file, "attributes", p.to_string()),
        e => e,
    })?;
    Ok((
        data,
        LgbSpec {
            k: k as usize,
            mode: config.search.local.mode,
            method: config.search.local.method,
        },
    ))
}

/// Runs the LGB job of `config` into `outputs` (see the module docs); with `queries`,
/// also measures the error of that many seeded random aggregate queries.
pub fn anonymize(
    config: &Config,
    outputs: &Outputs,
    queries: Option<usize>,
    observer: &dyn Observer,
) -> Result<LgbReport> {
    let start = Instant::now();
    if config.writes_database() {
        return Err(crate::error::Error::config(
            config.file_name(),
            "output.url",
            "an lgb release is several tables (a main table and bucket tables), written as \
             CSV files: give an output file, not a database",
        ));
    }
    // an lgb job needs the rows in memory: `[engine] kind = "streaming"` is refused
    config.engine_kind()?;
    if let Some(path) = &outputs.table {
        let format = config.output_format(path)?;
        if format != crate::data::table::Format::Csv {
            return Err(crate::error::ReleaseError::Format {
                path: path.clone(),
                what: "an LGB release (a main table and bucket tables)".to_owned(),
                format: format.describe(),
            }
            .into());
        }
    }
    let bucket_files: Vec<(String, PathBuf)> = match &outputs.table {
        Some(t) => bucketized(config)
            .into_iter()
            .map(|a| {
                let p = bucket_path(t, &a);
                (a, p)
            })
            .collect(),
        None => Vec::new(),
    };
    let mut named = outputs.named();
    named.extend(
        bucket_files
            .iter()
            .map(|(a, p)| (format!("the bucket table of {a}"), p.clone())),
    );
    check_paths(&config.input_files(), &named)?;
    let targets: Vec<PathBuf> = named.iter().map(|(_, p)| p.clone()).collect();
    let mut tx = Transaction::begin(&targets)?;
    let (table, read) = config.read(observer)?;
    let clock = Instant::now();
    let (data, spec) = data(config, table)?;
    let encode = clock.elapsed().as_secs_f64();
    let order = if config.output.keep_order {
        RowOrder::Input
    } else {
        RowOrder::Shuffled(
            config
                .output
                .seed
                .unwrap_or_else(crate::release::fresh_seed),
        )
    };
    let queries = queries.map(|n| (n, QUERY_SEED));
    let release = release_lgb(
        &data,
        &spec,
        &config.csv_format()?,
        order,
        queries,
        observer,
    )
    .map_err(|e| match e {
        // a protection the data cannot meet: the [[privacy]] models chose it
        Error::Problem(ProblemError::Local(m)) => Error::config(config.file_name(), "privacy", m),
        e => e,
    })?;
    let mut timings = release.timings;
    timings.read = read;
    timings.encode = encode;
    let mut report = LgbReport {
        algorithm: "lgb",
        found: release.found(),
        k: spec.k,
        output: None,
        bucket_tables: Vec::new(),
        figures: release.figures.clone(),
        audit: release.audit.clone(),
        seed: match order {
            RowOrder::Shuffled(s) => Some(s),
            RowOrder::Input => None,
        },
        warnings: Vec::new(),
        timings,
        seconds: 0.0,
    };
    let unlisted: Vec<String> = config
        .unlisted_released(data.table.header())
        .into_iter()
        .filter(|c| {
            data.table
                .column_index(c)
                .is_some_and(|i| data.roles[i] != Role::Identifying)
        })
        .collect();
    if !unlisted.is_empty() {
        report.warnings.push(format!(
            "columns not listed under [attributes] are released as they are: {}",
            unlisted.join(", ")
        ));
    }
    if config.output.keep_order {
        report
            .warnings
            .push("rows keep the input's order, which can link them back to persons".to_owned());
    }
    if let Some(f) = &release.figures {
        if f.moved_cells > 0 {
            report.warnings.push(format!(
                "{} quasi-identifying cells of persons in QI-partition subsets smaller than k \
                 were bucketized as if flagged sensitive (their subsets merged)",
                f.moved_cells
            ));
        }
    }
    if let (Some(path), true) = (&outputs.table, release.found()) {
        let clock = Instant::now();
        tx.stage(path, |w| w.write_all(&release.main))?;
        for (attribute, bytes) in &release.buckets {
            let (_, p) = bucket_files
                .iter()
                .find(|(a, _)| a == attribute)
                .expect("every bucketized attribute is named in the config");
            tx.stage(p, |w| w.write_all(bytes))?;
            report.bucket_tables.push(BucketFile {
                attribute: attribute.clone(),
                path: p.display().to_string(),
            });
        }
        if let Some(mapping) = &outputs.mapping {
            tx.stage(mapping, |w| write_mapping(w, &release.rows, &data.table))?;
        }
        report.timings.write += clock.elapsed().as_secs_f64();
        report.output = Some(path.display().to_string());
    }
    report.seconds = start.elapsed().as_secs_f64();
    if let Some(path) = &outputs.report {
        let text = json(&report)?;
        tx.stage(path, |w| w.write_all(text.as_bytes()))?;
    }
    tx.commit()?;
    Ok(report)
}
