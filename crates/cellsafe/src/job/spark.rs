//! A full-domain job on the Spark engine (`[engine] kind = "spark"`): the rows stay on the
//! cluster.
//!
//! The passes of [`crate::engine`], run by [`crate::engine::spark`]: the frequency set as
//! one `GROUP BY` on the cluster, the search here on it ([`super::stream::search_set`], as
//! for the streaming engine), the release as one Spark plan written by the cluster to a
//! staging location beside the destination (a Parquet directory or a table), the audit
//! count as a `GROUP BY` on the cluster over what was written, judged here against the
//! search's classes. Only an audited release is moved onto the destination; a failure or
//! an interrupt removes the staging location. The report is written here, as for every
//! job.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::config::{Config, EngineKind};
use super::report::Report;
use super::stream::{judged, search_set, timings, EngineReport, SparkReport};
use super::{finish, Outputs};
use crate::data::table::Format;
use crate::data::Role;
use crate::engine::spark::{Destination, Spark, SparkSource};
use crate::engine::{PassTimings, ReleasePlan};
use crate::error::{Error, Result};
use crate::observer::Observer;
use crate::release::output::{check_paths, Transaction};

/// The source `[input]` names, as the cluster reads it: a path relative to the config is
/// made absolute here (a path with a scheme, `hdfs://…`, is the cluster's own).
fn source(config: &Config) -> Result<SparkSource> {
    let input = &config.input;
    if let Some(table) = &input.table {
        return Ok(SparkSource::Table(table.clone()));
    }
    if let Some(query) = &input.query {
        return Ok(SparkSource::Query(query.clone()));
    }
    let text = input.path.to_string_lossy();
    let path = if text.contains("://") {
        input.path.clone()
    } else {
        let p = config.resolve(&input.path);
        std::path::absolute(&p).unwrap_or(p)
    };
    Ok(match config.input_format()? {
        Format::Parquet => SparkSource::Parquet(path),
        _ => SparkSource::Csv {
            path,
            delimiter: config.csv_format()?.delimiter,
        },
    })
}

/// Where the release goes: `[output] table`, else the path given (`--output` or
/// `[output] path`), made absolute.
fn destination(config: &Config, outputs: &Outputs) -> Option<Destination> {
    if let Some(table) = &config.output.table {
        return Some(Destination::Table(table.clone()));
    }
    outputs
        .table
        .as_ref()
        .map(|p| Destination::Path(std::path::absolute(p).unwrap_or_else(|_| p.clone())))
}

/// The source's columns the search reads: roles, public flags, the quasi-identifiers and
/// sensitive columns (the frequency set's), and the insensitive ones (checked for `*`).
type Columns = (Vec<Role>, Vec<bool>, Vec<usize>, Vec<usize>);

fn columns(config: &Config, spark: &Spark) -> Result<Columns> {
    let (mut roles, public) = config.source_roles(spark.header(), spark.source())?;
    let flag = subset_flag(config, spark);
    let counted: Vec<usize> = (0..roles.len())
        .filter(|&c| {
            matches!(roles[c], Role::QuasiIdentifying | Role::Sensitive) || Some(c) == flag
        })
        .collect();
    // the flag says who is in the research subset: counted, never released (the dataset
    // refuses it listed with another role)
    if let Some(c) = flag {
        if !config.attributes.contains_key(&spark.header()[c]) {
            roles[c] = Role::Identifying;
        }
    }
    let insensitive: Vec<usize> = (0..roles.len())
        .filter(|&c| roles[c] == Role::Insensitive)
        .collect();
    Ok((roles, public, counted, insensitive))
}

/// The index of the research subset's flag column (`[input.subset] column`) in the
/// source's header, if the job has one there.
fn subset_flag(config: &Config, spark: &Spark) -> Option<usize> {
    let name = config.input.subset.as_ref()?.column.as_ref()?;
    spark.header().iter().position(|h| h == name)
}

/// The problem of `config` on the frequency set the cluster counts (for `cellsafe risk`
/// and `evaluate`): its rows weighted by the persons they stand for.
pub(crate) fn problem(
    config: &Config,
    observer: &dyn Observer,
) -> Result<crate::algorithm::problem::Problem> {
    config.check_parameters()?;
    let file = config.file_name();
    let spark = Spark::connect(
        config.engine.remote.as_deref().unwrap_or_default(),
        source(config)?,
        &file,
    )?;
    let (_, _, counted, insensitive) = columns(config, &spark)?;
    let set = spark.frequency_set(&counted, &insensitive, observer)?;
    let data = config.frequency_dataset(set.set)?;
    crate::algorithm::problem::Problem::new(
        data,
        &config.privacy,
        config.suppression_limit,
        &config.metric,
    )
}

/// Runs `config` on the Spark engine (see the module documentation).
pub(super) fn anonymize(
    config: &Config,
    outputs: &Outputs,
    observer: &dyn Observer,
    start: Instant,
) -> Result<Report> {
    let file = config.file_name();
    if outputs.mapping.is_some() {
        return Err(Error::config(
            &file,
            "engine.kind",
            "the Spark engine writes no mapping to input lines (its rows have no lines \
             here): leave --mapping out",
        ));
    }
    let destination = destination(config, outputs);
    // the report is the one file written here
    let mut named: Vec<(String, PathBuf)> = Vec::new();
    if let Some(report) = &outputs.report {
        named.push(("the report".to_owned(), report.clone()));
    }
    if let Some(Destination::Path(p)) = &destination {
        if outputs
            .report
            .as_ref()
            .is_some_and(|r| std::path::absolute(r).is_ok_and(|r| r == *p || r.starts_with(p)))
        {
            return Err(Error::config(
                &file,
                "output.report",
                "the report would be written inside the release's directory",
            ));
        }
    }
    check_paths(&config.input_files(), &named)?;
    let targets: Vec<PathBuf> = named.into_iter().map(|(_, p)| p).collect();
    let tx = Transaction::begin(&targets)?;
    let remote = config.engine.remote.clone().unwrap_or_default();
    let clock = Instant::now();
    let source = source(config)?;
    if let (
        Some(Destination::Path(out)),
        SparkSource::Parquet(p) | SparkSource::Csv { path: p, .. },
    ) = (&destination, &source)
    {
        if p.starts_with(out) || out.starts_with(p) {
            return Err(Error::config(
                &file,
                "output.path",
                format!(
                    "the release {} and the input {} would overlap",
                    out.display(),
                    p.display()
                ),
            ));
        }
    }
    let spark = Spark::connect(&remote, source, &file)?;
    if let Some(d) = &destination {
        spark.check_destination(d, config.output.replace)?;
    }
    let (roles, public, columns, insensitive) = columns(config, &spark)?;
    let counted = spark.frequency_set(&columns, &insensitive, observer)?;
    let set_rows = counted.set.table.rows();
    let mut passes = PassTimings {
        frequency_set: clock.elapsed().as_secs_f64(),
        ..PassTimings::default()
    };
    let clock = Instant::now();
    let (release, mut report) = search_set(
        config,
        counted.set.clone(),
        spark.source(),
        spark.header(),
        (&roles, &public),
        (&columns, &insensitive),
        observer,
    )?;
    passes.search = clock.elapsed().as_secs_f64();
    let mut spark_report = SparkReport {
        remote: remote.clone(),
        frequency_set_bytes: counted.bytes,
        audit_bytes: 0,
        output: String::new(),
    };
    if let (Some(destination), Some(best)) = (&destination, release.evaluation()) {
        let clock = Instant::now();
        let plan = ReleasePlan::new(
            release.problem(),
            &best.levels,
            spark.header(),
            &roles,
            &public,
            config.output.suppression,
            release.order(),
            config.csv_format()?,
        )?;
        // a research subset: its rows are those whose flag marks a member, and the audit of
        // δ-presence compares the release with the whole source's frequency set
        let population = release.problem().data.population.clone();
        let flag = subset_flag(config, &spark);
        let member_values: Vec<String> = match (&population, flag) {
            (Some(p), Some(c)) => {
                let table = &counted.set.table;
                let column = table
                    .column_index(&spark.header()[c])
                    .expect("the flag is counted");
                let mut values: Vec<String> = p
                    .members
                    .iter()
                    .map(|&r| table.value(r as usize, column).to_owned())
                    .collect();
                values.sort();
                values.dedup();
                values
            }
            _ => Vec::new(),
        };
        let presence = population
            .as_ref()
            .map(|p| crate::anonymizer::presence_expected(release.problem(), p, &best.levels));
        drop(release);
        let staged = spark.stage(destination, config.output.replace)?;
        let members = flag
            .filter(|_| population.is_some())
            .map(|c| (c, &member_values[..]));
        spark.release(&plan, &counted, members, staged.location(), observer)?;
        passes.release = clock.elapsed().as_secs_f64();
        let clock = Instant::now();
        let (written, bytes) = spark.audit_count(staged.location(), &plan, observer)?;
        spark_report.audit_bytes = bytes;
        let mut expected = plan.expected(&config.privacy);
        expected.presence = presence.as_ref();
        let audit = judged(&written, &expected, Path::new(&destination.describe()))?;
        passes.audit = clock.elapsed().as_secs_f64();
        staged.publish()?;
        spark_report.output = destination.describe();
        report.output = Some(destination.describe());
        report.audit = Some(audit);
    }
    report.timings = Some(timings(&passes));
    report.engine = Some(EngineReport {
        kind: EngineKind::Spark,
        memory_limit: config.memory_limit()?,
        spill_dir: String::new(),
        frequency_set_rows: set_rows,
        spilled_bytes: 0,
        passes,
        spark: Some(spark_report),
    });
    report.seconds = start.elapsed().as_secs_f64();
    finish(tx, outputs, &report)?;
    Ok(report)
}
