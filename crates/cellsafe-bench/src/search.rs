//! `cellsafe-bench search`: timings of the searches on the Adult data, each next to the exhaustive
//! search of the same problem (the baseline run side by side).

use std::time::Instant;

use anyhow::Result;
use cellsafe::algorithm;
use cellsafe::job::config::Config;
use cellsafe::observer::Silent;
use cellsafe_bench::scenarios::{problem, scenarios};
use cellsafe_bench::timing::{median_ms, peak_rss_mb};

pub fn run(runs: usize, config: &Config, synthetic_rows: Option<usize>) -> Result<()> {
    outln!(
        "cellsafe-bench search: Adult, {} threads, median of {runs} runs (search only, data loaded)",
        rayon::current_num_threads()
    );
    outln!(
        "{:<22} {:>7} {:>10} {:>9} {:>14} {:>9}",
        "scenario",
        "lattice",
        "evaluated",
        "optimal",
        "exhaustive",
        "speedup"
    );
    for s in scenarios() {
        let p = problem(config, &s)?;
        let mut evaluated = 0;
        let mut result = Ok(());
        let optimal = median_ms(runs, || match algorithm::optimal(&p, &Silent) {
            Ok(outcome) => evaluated = outcome.nodes_evaluated,
            Err(e) => result = Err(e),
        });
        let exhaustive = median_ms(runs, || {
            if let Err(e) = algorithm::exhaustive(&p, &Silent) {
                result = Err(e);
            }
        });
        result?;
        outln!(
            "{:<22} {:>7} {:>10} {:>6.1} ms {:>11.1} ms {:>8.1}x",
            s.name,
            p.lattice.size(),
            evaluated,
            optimal,
            exhaustive,
            exhaustive / optimal,
        );
    }
    if let Some(rows) = synthetic_rows {
        let (_dir, synthetic) = cellsafe_bench::synth::adult_config(config, rows, 1)?;
        let t = Instant::now();
        let p = synthetic.problem()?;
        let load = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let outcome = algorithm::optimal(&p, &Silent)?;
        let search_s = t.elapsed().as_secs_f64();
        outln!(
            "synthetic {rows} rows, k=5 1% Loss: load {load:.2} s, search {search_s:.2} s, total {:.2} s, {} nodes, {} base tuples, peak RSS {:.0} MB, levels {:?}",
            load + search_s,
            outcome.nodes_evaluated,
            p.snapshot.base().len(),
            peak_rss_mb().unwrap_or(f64::NAN),
            outcome.best.map(|b| b.levels)
        );
    }
    Ok(())
}
