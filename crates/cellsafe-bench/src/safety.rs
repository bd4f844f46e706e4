//! `cellsafe-bench safety`: the minimal-safe searches of papers 000 and 002 on the Adult
//! data (sensitive: occupation; everyone holds each single occupation confidential), side
//! by side: the papers' breadth-first search (the baseline), Incognito, and the default
//! search by inference; then the same on a seeded synthetic table. Also: the breadth-first
//! search over a partial order of partitions, set-based safety and the goal-directed search.

use std::time::Instant;

use anyhow::Result;
use cellsafe::algorithm::problem::Problem;
use cellsafe::algorithm::{self, Minimal, MinimalStrategy, Search};
use cellsafe::job::config::Config;
use cellsafe::observer::Silent;

use cellsafe_bench::synth::adult_config;
use cellsafe_bench::timing::median_ms;

const SEARCHES: [(&str, MinimalStrategy); 3] = [
    ("bfs (fig. 5/11)", MinimalStrategy::Bfs),
    ("incognito", MinimalStrategy::Incognito),
    ("inference", MinimalStrategy::Inference),
];

/// Runs the three minimal searches on `p`, each against `baseline` (time in ms and the
/// minimal nodes) or, without one, against the first search.
fn compare(p: &Problem, runs: usize, baseline: Option<(f64, Vec<Vec<u8>>)>) -> Result<()> {
    let (mut base, mut answer) = baseline.unzip();
    for (name, strategy) in SEARCHES {
        let search = Minimal { strategy };
        let mut outcome = None;
        let ms = median_ms(runs, || outcome = Some(search.search(p, &Silent)));
        let outcome = outcome.expect("ran")?;
        let found: Vec<Vec<u8>> = outcome.minimal.iter().map(|e| e.levels.clone()).collect();
        let same = answer.get_or_insert_with(|| found.clone()) == &found;
        let base = *base.get_or_insert(ms);
        outln!(
            "  {name:<16} {:>6} nodes evaluated {:>10.1} ms {:>8.1}x  {} minimal nodes{}",
            outcome.nodes_evaluated,
            ms,
            base / ms,
            found.len(),
            if same { "" } else { "  DIFFERENT ANSWER" }
        );
    }
    Ok(())
}

fn describe(label: &str, p: &Problem) {
    outln!(
        "{label}: {} rows, {} base tuples, lattice {}",
        p.data.rows(),
        p.snapshot.base().len(),
        p.lattice.size()
    );
}

/// Set-based safety (R_τ, perfect-matching reduction, three-valued knowledge) of Adult as
/// it is and at the minimal safe node with the fewest generalized cells.
fn set_based(p: &Problem, runs: usize) -> Result<()> {
    use cellsafe::algorithm::setbased::{level_based_cells, SetTable};
    let original = SetTable::new(p, &Default::default())?;
    let mut verdict = None;
    let ms = median_ms(runs, || verdict = Some(original.safety(10)));
    let v = verdict.expect("ran");
    outln!(
        "set-based safety, original table: {:.1} ms ({} person types, {} record types, |R| = {}, |R reduced| = {}, {} unsafe persons)",
        ms, v.person_types, v.record_types, v.links, v.reduced_links, v.unsafe_persons
    );
    let best = algorithm::minimal(p, &Silent)?
        .minimal
        .iter()
        .map(|e| (level_based_cells(p, &e.levels), e.levels.clone()))
        .min();
    if let Some((cells, levels)) = best {
        let mut t = SetTable::new(p, &Default::default())?;
        t.apply_levels(&levels)?;
        let mut verdict = None;
        let ms = median_ms(runs, || verdict = Some(t.safety(10)));
        let v = verdict.expect("ran");
        outln!(
            "set-based safety at levels {levels:?} ({cells} cells generalized): {:.1} ms (|R| = {}, |R reduced| = {}, safe: {})",
            ms, v.links, v.reduced_links, v.safe
        );
    }
    Ok(())
}

/// The goal-directed set-based search against the best level-based transformation on a
/// seeded synthetic sample.
fn goal_directed(config: &Config, rows: usize) -> Result<()> {
    let (_dir, sample) = adult_config(config, rows, 2)?;
    let p = sample.problem()?;
    let t = Instant::now();
    let (_, report) = cellsafe::algorithm::setbased::run(&p, &Default::default())?;
    outln!(
        "goal-directed set-based search, synthetic {rows} rows (seed 2): {:.2} s, safe {}, {} rounds, {} cells generalized ({} merges, {} widenings); best minimal level-based node {:?} generalizes {} cells",
        t.elapsed().as_secs_f64(),
        report.search.safe,
        report.search.rounds,
        report.search.generalized_cells,
        report.search.merges,
        report.search.widenings,
        report.level_based_levels.unwrap_or_default(),
        report.level_based_cells.map_or("-".into(), |c| c.to_string())
    );
    Ok(())
}

/// Granulation beyond chains: Adult with marital-status granulated by partitions that
/// form a partial order (marital status ≺ ever married, and spouse present, which is
/// comparable with neither), the minimal safe nodes by the breadth-first search over
/// direct successors, Incognito and inference against evaluating every node.
fn partial_order(config: &Config, runs: usize) -> Result<()> {
    use cellsafe::hierarchy::{Builder, HierarchySpec};
    let married = [
        "Married-civ-spouse",
        "Married-AF-spouse",
        "Married-spouse-absent",
    ];
    let previously = ["Divorced", "Separated", "Widowed"];
    let partition = |groups: &[(&str, Vec<&str>)]| {
        groups
            .iter()
            .map(|(label, members)| {
                let members = members.iter().map(|m| m.to_string()).collect();
                (label.to_string(), members)
            })
            .collect()
    };
    let mut partitions = std::collections::BTreeMap::new();
    partitions.insert(
        "spouse".to_string(),
        partition(&[
            ("spouse present", married[..2].to_vec()),
            (
                "spouse not present",
                [&married[2..], &previously[..], &["Never-married"]].concat(),
            ),
        ]),
    );
    partitions.insert(
        "status".to_string(),
        partition(&[
            ("married", married.to_vec()),
            ("previously married", previously.to_vec()),
            ("never married", vec!["Never-married"]),
        ]),
    );
    partitions.insert(
        "ever".to_string(),
        partition(&[
            ("ever married", [&married[..], &previously[..]].concat()),
            ("never married", vec!["Never-married"]),
        ]),
    );
    let builder = Builder::Partitions { partitions };
    let mut config = config.clone();
    config
        .attributes
        .get_mut("marital-status")
        .ok_or_else(|| anyhow::anyhow!("Adult has no marital-status"))?
        .hierarchy = Some(HierarchySpec::Builder(builder));
    let p = config.problem()?;
    outln!(
        "partial-order granulation, Adult with marital-status as 5 partitions (not a chain): lattice {}",
        p.lattice.size()
    );
    let mut all = None;
    let exhaustive_ms = median_ms(runs, || all = Some(algorithm::exhaustive(&p, &Silent)));
    let (_, all) = all.expect("ran")?;
    let acceptable: Vec<&Vec<u8>> = all
        .iter()
        .filter(|e| e.acceptable)
        .map(|e| &e.levels)
        .collect();
    let brute: Vec<Vec<u8>> = acceptable
        .iter()
        .filter(|a| {
            !acceptable
                .iter()
                .any(|b| b != *a && p.lattice.generalizes(a, b))
        })
        .map(|a| (*a).clone())
        .collect();
    outln!(
        "  every node       {:>6} nodes evaluated {:>10.1} ms      1.0x  {} minimal nodes",
        all.len(),
        exhaustive_ms,
        brute.len()
    );
    compare(&p, runs, Some((exhaustive_ms, brute)))?;
    Ok(())
}

pub fn run(runs: usize, config: &Config, synthetic_rows: Option<usize>) -> Result<()> {
    let mut config = config.clone();
    let safety = cellsafe_bench::adult::safety_config()?;
    config.privacy = safety.privacy.clone();
    config.safety = safety.safety.clone();
    config.suppression_limit = 0.0;
    config.metric = safety.metric.clone();
    outln!(
        "cellsafe-bench safety: minimal safe generalizations, {} threads, median of {runs} runs (search only, data loaded)",
        rayon::current_num_threads()
    );
    let t = Instant::now();
    let p = config.problem()?;
    outln!("Adult loaded in {:.2} s", t.elapsed().as_secs_f64());
    describe("Adult", &p);
    compare(&p, runs, None)?;
    partial_order(&config, runs)?;
    set_based(&p, runs)?;
    if let Some(rows) = synthetic_rows {
        let (_dir, synthetic) = adult_config(&config, rows, 1)?;
        let t = Instant::now();
        let p = synthetic.problem()?;
        outln!(
            "synthetic (seed 1) loaded in {:.2} s",
            t.elapsed().as_secs_f64()
        );
        describe(&format!("synthetic {rows}"), &p);
        compare(&p, runs, None)?;
    }
    goal_directed(&config, 2000)?;
    Ok(())
}
