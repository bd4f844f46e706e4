//! A full-domain job on the streaming engine: the input file is never held in memory.
//!
//! The passes of [`crate::engine`]: the frequency set of the quasi-identifier and sensitive
//! columns (one scan), the search on it ([`Anonymizer::search`]), the release written by a
//! second scan through the [`ReleasePlan`] and sorted within `[engine] memory_limit`
//! (spilling to `[engine] spill_dir`), then the audit count, a third scan, of the staged
//! file. The release is staged, audited and renamed into place with the report as a job on
//! the in-memory engine is, and holds the same bytes.

use std::io::{BufWriter, Seek, SeekFrom, Write};
use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::config::{Config, EngineKind};
use super::report::Report;
use super::{finish, Outputs};
use crate::anonymizer::{Anonymizer, Release};
use crate::data::table::scan::{RowSource, Scan};
use crate::data::table::Format;
use crate::data::Role;
use crate::engine::{Engine, FrequencySet, PassTimings, ReleasePlan, Streaming};
use crate::error::{DatasetError, Error, Location, Result};
use crate::observer::Observer;
use crate::release::audit::audit_counts;
use crate::release::output::Transaction;

/// What the report says of the engine a job ran on.
#[derive(Debug, Clone, Serialize)]
pub struct EngineReport {
    /// `memory` or `streaming`.
    pub kind: EngineKind,
    /// The memory limit (bytes).
    pub memory_limit: u64,
    /// Where the sort spilled.
    pub spill_dir: String,
    /// Rows of the frequency set the search ran on (distinct tuples).
    pub frequency_set_rows: usize,
    /// Bytes of sorted rows spilled.
    pub spilled_bytes: u64,
    /// Seconds per pass.
    pub passes: PassTimings,
    /// On the Spark engine: the server, and what came to this machine.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spark: Option<SparkReport>,
}

/// What the report says of a job on the Spark engine.
#[derive(Debug, Clone, Serialize)]
pub struct SparkReport {
    /// The Spark Connect server (`engine.remote`, without a token).
    pub remote: String,
    /// Bytes of Arrow IPC fetched to this machine for the frequency set (the rows never
    /// are).
    pub frequency_set_bytes: u64,
    /// Bytes of Arrow IPC fetched for the audit count (a row per class and sensitive
    /// values).
    pub audit_bytes: u64,
    /// Where the cluster wrote the release (a Parquet directory or a table).
    pub output: String,
}

/// The share of the memory limit the sort of released rows may hold.
const SORT_SHARE: u64 = 2;

/// Runs `config` on the streaming engine (see the module documentation); `tx` holds the
/// locked outputs.
pub(super) fn anonymize(
    config: &Config,
    outputs: &Outputs,
    observer: &dyn Observer,
    mut tx: Transaction,
    out_format: Format,
    start: Instant,
) -> Result<Report> {
    let file = config.file_name();
    let limit = config.memory_limit()?;
    let spill_dir = config.spill_dir(outputs.table.as_deref());
    if !spill_dir.is_dir() {
        return Err(Error::config(
            &file,
            "engine.spill_dir",
            format!("{} is not a directory", spill_dir.display()),
        ));
    }
    let clock = Instant::now();
    let scan = Scan::open(
        &config.data_path(),
        config.input_format()?,
        &config.csv_format()?,
    )?;
    let (roles, public) = config.source_roles(scan.header(), scan.source())?;
    let source_schema = scan.schema().cloned();
    let engine: Streaming = Streaming::streaming(scan, (limit / SORT_SHARE) as usize, &spill_dir);
    let columns: Vec<usize> = (0..roles.len())
        .filter(|&c| matches!(roles[c], Role::QuasiIdentifying | Role::Sensitive))
        .collect();
    let insensitive: Vec<usize> = (0..roles.len())
        .filter(|&c| roles[c] == Role::Insensitive)
        .collect();
    let set = engine.frequency_set(&columns, &insensitive, observer)?;
    let set_rows = set.table.rows();
    let mut passes = PassTimings {
        frequency_set: clock.elapsed().as_secs_f64(),
        ..PassTimings::default()
    };
    let clock = Instant::now();
    let source = engine.source().to_owned();
    let (release, mut report) = search_set(
        config,
        set,
        &source,
        engine.header(),
        (&roles, &public),
        (&columns, &insensitive),
        observer,
    )?;
    passes.search = clock.elapsed().as_secs_f64();
    let mut engine_report = EngineReport {
        kind: EngineKind::Streaming,
        memory_limit: limit,
        spill_dir: spill_dir.display().to_string(),
        frequency_set_rows: set_rows,
        spilled_bytes: 0,
        passes,
        spark: None,
    };
    if let (Some(path), Some(best)) = (&outputs.table, release.evaluation()) {
        let clock = Instant::now();
        let plan = ReleasePlan::new(
            release.problem(),
            &best.levels,
            engine.header(),
            &roles,
            &public,
            config.output.suppression,
            release.order(),
            config.csv_format()?,
        )?;
        debug_assert_eq!(plan.suppressed_rows(), best.suppressed_rows);
        // the search's memory is not needed by the release pass
        drop(release);
        // the mapping is written beside the release into an anonymous file, then staged
        let mapping = match &outputs.mapping {
            Some(_) => {
                Some(tempfile::tempfile_in(&spill_dir).map_err(|e| Error::io(&spill_dir, e))?)
            }
            None => None,
        };
        let mut failure: Option<Error> = None;
        let mut release_into = |w: &mut dyn Write| -> std::io::Result<()> {
            let mut buffered = mapping.as_ref().map(BufWriter::new);
            let released = engine.release(
                &plan,
                w,
                buffered.as_mut().map(|b| b as &mut dyn Write),
                observer,
            );
            match released {
                Ok(r) => {
                    engine_report.spilled_bytes = r.spilled_bytes;
                    if let Some(b) = buffered {
                        b.into_inner().map_err(|e| e.into_error())?;
                    }
                    Ok(())
                }
                Err(e) => {
                    failure = Some(e);
                    Err(std::io::Error::other("the release pass failed"))
                }
            }
        };
        // a columnar release is written as CSV to an anonymous file first, audited there,
        // then written as its format and read back against it (`job::output`)
        let written = if out_format == Format::Csv {
            let staged = tx.stage(path, |w| release_into(w));
            let staged = match (staged, failure.take()) {
                (_, Some(e)) => return Err(e),
                (r, None) => r?,
            };
            crate::engine::written(&staged, &plan.format)?
        } else {
            let csv = tempfile::tempfile_in(&spill_dir).map_err(|e| Error::io(&spill_dir, e))?;
            let mut buffered = BufWriter::new(&csv);
            let done = release_into(&mut buffered).and_then(|_| buffered.flush());
            drop(buffered);
            match (done, failure.take()) {
                (_, Some(e)) => return Err(e),
                (r, None) => r.map_err(|e| Error::io(path, e))?,
            }
            crate::engine::written_file(csv, path, &plan.format)?
        };
        engine_report.passes.release = clock.elapsed().as_secs_f64();
        let clock = Instant::now();
        let counted = engine.audit_count(&written, &plan, observer)?;
        let audit = judged(&counted, &plan.expected(&config.privacy), path)?;
        engine_report.passes.audit = clock.elapsed().as_secs_f64();
        if out_format != Format::Csv {
            report.output_schema = Some(stage_columnar(
                &mut tx,
                path,
                out_format,
                &plan,
                &written,
                &roles,
                source_schema.as_ref(),
            )?);
            engine_report.passes.release += clock.elapsed().as_secs_f64();
        }
        if let (Some(target), Some(mut file)) = (&outputs.mapping, mapping) {
            file.seek(SeekFrom::Start(0))
                .map_err(|e| Error::io(target, e))?;
            tx.stage(target, |w| std::io::copy(&mut file, w).map(|_| ()))?;
        }
        report.output = Some(path.display().to_string());
        report.audit = Some(audit);
    }
    report.timings = Some(timings(&engine_report.passes));
    report.engine = Some(engine_report);
    report.seconds = start.elapsed().as_secs_f64();
    finish(tx, outputs, &report)?;
    Ok(report)
}

/// The counts of a written release judged against what the search released: the audit,
/// or [`Error::AuditFailed`] naming `path`.
pub(super) fn judged(
    counted: &crate::release::audit::Counted,
    expected: &crate::release::audit::CountExpected,
    path: &Path,
) -> Result<crate::release::audit::Audit> {
    let mut audit = audit_counts(counted, expected);
    if !audit.passed && !expected.public.is_empty() {
        // as the in-memory release says (`Anonymizer::release_node`)
        audit.violations.push(format!(
            "public columns ({}) are known to the recipient and split the classes they vary \
             in: mark a column that tells persons apart quasi-identifying",
            expected.public.join(", ")
        ));
    }
    if !audit.passed {
        return Err(Error::AuditFailed {
            path: path.to_owned(),
            violations: audit.violations,
        });
    }
    Ok(audit)
}

/// An engine's passes as the report's timings.
pub(super) fn timings(passes: &PassTimings) -> crate::anonymizer::Timings {
    crate::anonymizer::Timings {
        read: passes.frequency_set,
        search: passes.search,
        release: passes.release,
        audit: passes.audit,
        ..Default::default()
    }
}

/// The search on a frequency set `set` of the columns `columns` (indices in `header`, the
/// header of `source`, whose columns have `roles` and public flags): first what a dataset
/// checks of every column, for those the set leaves out (`insensitive` are where its stars
/// were looked for), then the search as the config says. Returns the release and its
/// report (naming the source's header).
pub(super) fn search_set(
    config: &Config,
    set: FrequencySet,
    source: &Path,
    header: &[String],
    (roles, public): (&[Role], &[bool]),
    (columns, insensitive): (&[usize], &[usize]),
    observer: &dyn Observer,
) -> Result<(Release, Report)> {
    let file = config.file_name();
    let stars = set.stars.clone();
    // an error in a value names its column in the frequency set: name it in the source
    let data = config.frequency_dataset(set).map_err(|e| match e {
        Error::Data { mut at, message } if at.path() == source => {
            at.column = at
                .column
                .map(|c| columns.get(c as usize - 1).map_or(c, |&s| s as u64 + 1));
            Error::Data { at, message }
        }
        e => e,
    })?;
    if let Some(c) = (0..roles.len()).find(|&c| public[c] && roles[c] != Role::Insensitive) {
        return Err(Error::config(
            &file,
            format!("attributes.{}.public", header[c]),
            "only an insensitive column can be public",
        ));
    }
    if let Some(c) = roles.iter().position(|r| *r == Role::SemiSensitive) {
        return Err(DatasetError::SemiSensitive(header[c].clone()).into());
    }
    if let Some((&c, line)) = insensitive
        .iter()
        .zip(&stars)
        .find_map(|(c, line)| line.map(|l| (c, l)))
    {
        return Err(Error::data(
            Location::at(source, line, Some(c as u64 + 1)),
            format!(
                "`*` in column `{}` would read as a suppressed cell in the release; recode it",
                header[c]
            ),
        ));
    }
    let mut anonymizer = Anonymizer::from_dataset(data)
        .models(config.privacy.clone())
        .suppression_limit(config.suppression_limit)
        .metric(config.metric.clone())
        .algorithm(config.search.algorithm)
        .observer(observer)
        .suppressed_rows(config.output.suppression)
        .csv_format(config.csv_format()?);
    if config.output.keep_order {
        anonymizer = anonymizer.keep_order();
    } else if let Some(seed) = config.output.seed {
        anonymizer = anonymizer.seed(seed);
    }
    if config.search.algorithm == crate::algorithm::Algorithm::Genetic {
        anonymizer = anonymizer.genetic(config.search.genetic.clone());
    }
    if let Some(levels) = &config.search.levels {
        anonymizer = anonymizer.levels(levels.clone());
    }
    let release = anonymizer.search()?;
    // the source's header: the frequency set holds only the columns the search reads
    let mut report = super::report(config, &release, header);
    if !report.found {
        report.warnings.extend(super::why_nothing(
            &config.privacy,
            release.problem().data.persons() as usize,
        ));
    }
    Ok((release, report))
}

/// Stages the audited CSV release in `written` at `path` as the columnar `format`: a
/// column the release keeps as it is (sensitive or insensitive) has its source's type.
#[cfg(feature = "arrow")]
fn stage_columnar(
    tx: &mut Transaction,
    path: &std::path::Path,
    format: Format,
    plan: &ReleasePlan,
    written: &Scan,
    roles: &[Role],
    schema: Option<&crate::data::table::SourceSchema>,
) -> Result<Vec<super::output::WrittenColumn>> {
    let source = schema.map(|s| s.arrow().clone());
    let header = written.header().to_vec();
    let types = crate::release::columnar::column_types(
        &header,
        |name| {
            source
                .as_ref()
                .and_then(|s| s.index_of(name).ok())
                .is_some_and(|c| matches!(roles[c], Role::Sensitive | Role::Insensitive))
        },
        schema,
    );
    super::output::stage_columnar(tx, path, format, &plan.format, &header, &types, || {
        written.reopen().map(std::io::BufReader::new)
    })
}

#[cfg(not(feature = "arrow"))]
fn stage_columnar(
    _: &mut Transaction,
    path: &std::path::Path,
    format: Format,
    _: &ReleasePlan,
    _: &Scan,
    _: &[Role],
    _: Option<&crate::data::table::SourceSchema>,
) -> Result<Vec<super::output::WrittenColumn>> {
    super::output::check_format(path, format).map(|_| Vec::new())
}
