//! `cellsafe-bench disclosure`: the paper 001 methods at sizes where enumeration is
//! hopeless, each next to a baseline run side by side.

use std::time::Instant;

use anyhow::Result;
use cellsafe::algorithm::disclosure::{Check, CheckSpec, Method, MethodChoice, Options, Strategy};
use cellsafe::job::config::Config;
use cellsafe::job::disclosure::{self, DiscloseSpec, GeneralizationSpec};
use cellsafe_bench::synth::nested_disclosure;
use cellsafe_bench::timing::{median, ms};

fn two_two() -> CheckSpec {
    CheckSpec::RecursiveCl { c: 2.0, l: 2 }
}

pub fn run(runs: usize, config: &Config) -> Result<()> {
    let check = Check::bind(&two_two()).map_err(anyhow::Error::msg)?;
    let options = Options::default();

    // Baseline: one 20-row block, 2 values, where enumeration is still possible.
    let small = nested_disclosure(1, 2, 1, check)?;
    let (per_small, _) = small.per_size(2, &small.instance.sensitive);
    let mut times = (Vec::new(), Vec::new());
    for _ in 0..runs {
        let t = Instant::now();
        let a = small.exclusive_tally(2, Method::Enumeration, &options)?;
        times.0.push(ms(t));
        let t = Instant::now();
        let b = small.exclusive_tally(2, Method::Counting, &options)?;
        times.1.push(ms(t));
        anyhow::ensure!(a == b, "counting disagrees with enumeration");
    }
    let (enumerate, count) = (median(times.0), median(times.1));
    outln!(
        "nested 20 rows, 2 values, |PER| = {}: enumeration {enumerate:.1} ms, counting {count:.2} ms ({:.0}x), same counts",
        per_small.unwrap_or(0),
        enumerate / count
    );

    // The benchmark: 60 rows in blocks of 20 (12+8, 6+6+8), 4 values.
    let big = nested_disclosure(3, 4, 1, check)?;
    let (per_big, per_log10) = big.per_size(2, &big.instance.sensitive);
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        let tally = big.exclusive_tally(2, Method::Counting, &options)?;
        times.push(ms(t));
        last = Some(tally);
    }
    let tally = last.expect("at least one run");
    let max = tally.counts.iter().max().copied().unwrap_or(0);
    outln!(
        "nested 60 rows, 4 values, |PER(G3)| = {} (10^{per_log10:.1}): counting DS_e,3 in {:.1} ms; |DS| = {} ({:.3} of PER), largest fraction {:.4}",
        per_big.map_or("> 2^128".into(), |p| p.to_string()),
        median(times),
        tally.total,
        tally.total as f64 / per_big.unwrap_or(u128::MAX) as f64,
        max as f64 / tally.total.max(1) as f64,
    );
    let t = Instant::now();
    let decision = big.decide(Strategy::Exclusive, &options)?;
    outln!(
        "  exclusive strategy on it: released {:?} in {:.1} ms (method {:?})",
        decision.released,
        ms(t),
        decision.decisive.as_ref().map(|a| a.method)
    );

    // Adult: a chain of four nested full-domain generalizations, sensitive occupation.
    let mut adult = config.clone();
    adult.disclose = Some(DiscloseSpec {
        check: two_two(),
        strategy: None,
        generalizations: [
            [1, 1, 1, 1, 1, 1, 1, 1],
            [1, 2, 1, 1, 2, 1, 1, 1],
            [1, 3, 1, 2, 2, 2, 2, 1],
            [1, 4, 1, 2, 3, 2, 2, 1],
        ]
        .iter()
        .map(|levels| GeneralizationSpec {
            name: None,
            groups: None,
            column: None,
            levels: Some(levels.to_vec()),
        })
        .collect(),
        method: MethodChoice::Estimate,
        samples: 50_000,
        seed: 1,
        confidence: 0.95,
        budget: options.budget,
    });
    let (d, estimate_options) = disclosure::from_config(&adult)?;
    for (i, p) in d.chain.iter().enumerate() {
        outln!(
            "  Adult G{}: {} ({} groups), PER passes: {}",
            i + 1,
            p.name,
            p.groups().len(),
            d.per_holds(i, &d.instance.sensitive)
        );
    }
    let t = Instant::now();
    let decision = d.decide(Strategy::Exclusive, &estimate_options)?;
    let seconds = t.elapsed().as_secs_f64();
    let a = decision
        .decisive
        .clone()
        .expect("a disclosure set was assessed");
    let Some(s) = a.estimate.clone() else {
        anyhow::bail!("the estimator was not used");
    };
    outln!(
        "Adult 30,162 rows, chain of 4, exclusive strategy by estimator ({} draws, seed {}): {seconds:.2} s; released {:?}; DS_e,{} share of PER {:.4} in [{:.4}, {:.4}]; largest fraction {:.4} in [{:.4}, {:.4}] at {:.0}% ({} has {})",
        s.samples,
        s.seed,
        decision.released,
        decision.decided_by.unwrap_or(0),
        s.disclosure_set_share,
        s.disclosure_set_share_interval[0],
        s.disclosure_set_share_interval[1],
        a.max_fraction_float.unwrap_or(f64::NAN),
        s.max_fraction_interval.map_or(f64::NAN, |x| x[0]),
        s.max_fraction_interval.map_or(f64::NAN, |x| x[1]),
        s.confidence * 100.0,
        a.person.unwrap_or_default(),
        a.value.unwrap_or_default(),
    );
    let exact = d.decide(Strategy::Exclusive, &Options::default())?;
    let e = exact.decisive.expect("assessed");
    outln!(
        "  the same by {:?} (exact): released {:?}; largest fraction {} = {:.4}",
        e.method,
        exact.released,
        e.max_fraction.unwrap_or_default(),
        e.max_fraction_float.unwrap_or(f64::NAN)
    );
    let t = Instant::now();
    let last = d.assess_exclusive(d.chain.len() - 1, &estimate_options)?;
    let s = last.estimate.expect("estimate");
    outln!(
        "  DS_e,4 by estimator: {:.2} s; share of PER {:.4}; largest fraction {:.4} in [{:.4}, {:.4}]",
        t.elapsed().as_secs_f64(),
        s.disclosure_set_share,
        last.max_fraction_float.unwrap_or(f64::NAN),
        s.max_fraction_interval.map_or(f64::NAN, |x| x[0]),
        s.max_fraction_interval.map_or(f64::NAN, |x| x[1]),
    );
    Ok(())
}
