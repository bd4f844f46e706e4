//! Paper 003's Tables 1(b), 2(a) and 2(b) reproduced on `examples/pbg`: for each set of
//! objectives, the exact front of the lattice and `runs` seeded PBG-EA runs (N_pop 25, 100
//! iterations, p_cross 0.8, p_mut 1/8, η = 301 rows), with the mean and variance of the
//! convergence error, the representation ratio and the distinct nodes evaluated, next to
//! the paper's figures. `docs/pbg.md` records the output.

use std::path::Path;
use std::time::Instant;

use anyhow::Result;
use cellsafe::algorithm::pareto::ea::{pbg_ea, EaSpec};
use cellsafe::algorithm::pareto::measures::{convergence_error, representation_ratio};
use cellsafe::algorithm::pareto::objective::{Evaluator, Index, Objective, Property};
use cellsafe::algorithm::pareto::{exact_front, oriented, Evaluated};
use cellsafe::data::Role;
use cellsafe::job::config::Config;
use cellsafe::observer::Silent;

/// One row of the paper's tables: objectives, ε, and the paper's CE, RR and evaluations
/// (mean and variance where printed).
struct Case {
    name: &'static str,
    objectives: Vec<Objective>,
    eps: Vec<f64>,
    /// Salary class as the class label instead of a quasi-identifier.
    label: bool,
    paper: &'static str,
}

fn p(property: Property, index: Index) -> Objective {
    Objective::Property { property, index }
}

fn cases() -> Vec<Case> {
    let k = || p(Property::ClassSize, Index::Min);
    let sk = || p(Property::ClassSize, Index::Sum);
    let occ = || "occupation".to_string();
    let l = || p(Property::DistinctValues { attribute: occ() }, Index::Min);
    let sl = || p(Property::SensitiveCount { attribute: occ() }, Index::Sum);
    let glm = || p(Property::Glm, Index::Sum);
    let cm = || {
        p(
            Property::Classification {
                label: "salary-class".into(),
            },
            Index::Sum,
        )
    };
    let case = |name, objectives: Vec<Objective>, eps: Vec<f64>, paper| Case {
        name,
        eps,
        objectives,
        label: false,
        paper,
    };
    vec![
        case(
            "k, GLM",
            vec![k(), glm()],
            vec![1.0, 1.0],
            "3.7e-4 / 6.5e-9; 0.94 / 8e-4; 916",
        ),
        case(
            "k, ℓ, GLM",
            vec![k(), l(), glm()],
            vec![1.0; 3],
            "3.3e-4 / 1.1e-7; 0.93 / 1.1e-3; 946",
        ),
        case(
            "S_k, GLM",
            vec![sk(), glm()],
            vec![1.0; 2],
            "5.7e-4 / 2.5e-7; 0.84 / 1.7e-3; 1136",
        ),
        case(
            "S_k, S_ℓ, GLM",
            vec![sk(), sl(), glm()],
            vec![1.0; 3],
            "6.6e-4 / 2.0e-7; 0.83 / 1.4e-3; 1197",
        ),
        case(
            "k, GLM; ε (5, 100)",
            vec![k(), glm()],
            vec![5.0, 100.0],
            "4.3e-4 / 2.6e-7; 0.95 / 1.6e-3",
        ),
        case(
            "k, GLM; ε (10, 1000)",
            vec![k(), glm()],
            vec![10.0, 1000.0],
            "1.6e-4 / 8.0e-8; 0.98 / 8.2e-4",
        ),
        case(
            "k, GLM; ε (50, 10000)",
            vec![k(), glm()],
            vec![50.0, 10000.0],
            "1.7e-4 / 1.1e-8; 1.0 / 0.0",
        ),
        case(
            "k, ℓ, GLM; ε (10, 4, 1000)",
            vec![k(), l(), glm()],
            vec![10.0, 4.0, 1000.0],
            "4.9e-3 / 2.5e-7; 0.92 / 1.2e-3 (see docs/pbg.md)",
        ),
        case(
            "k, ℓ, GLM; ε (50, 6, 10000)",
            vec![k(), l(), glm()],
            vec![50.0, 6.0, 10000.0],
            "7.4e-3 / 9.3e-7; 0.92 / 7.0e-4 (see docs/pbg.md)",
        ),
        Case {
            name: "k, GLM, CM (8,960 nodes)",
            objectives: vec![k(), glm(), cm()],
            eps: vec![1.0; 3],
            label: true,
            paper: "1073",
        },
    ]
}

/// Mean and (population) variance.
fn moments(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let mean = x.iter().sum::<f64>() / n;
    (
        mean,
        x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n,
    )
}

/// Prints the table for `runs` seeds (0, 1, ...), for the cases whose name contains
/// `only` (all when `None`).
pub fn run(runs: usize, only: Option<&str>) -> Result<()> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/pbg/pbg.toml");
    outln!(
        "paper 003 on examples/pbg: {runs} seeded PBG-EA runs per case (N_pop 25, 100 iterations, \
         p_cross 0.8, p_mut 1/8, eta 301 rows); mean / variance"
    );
    outln!();
    outln!("| objectives | lattice | exact front | exact s | CE (sum) | CE / archive | RR | evaluations | EA ms (median) | paper: CE; RR; evaluations |");
    outln!("|---|---:|---:|---:|---|---|---|---:|---:|---|");
    for case in cases()
        .into_iter()
        .filter(|c| only.is_none_or(|o| c.name.contains(o)))
    {
        let mut config = Config::from_file(&path)?;
        if case.label {
            config
                .attributes
                .get_mut("salary-class")
                .expect("salary-class in pbg.toml")
                .role = Role::Sensitive;
        }
        let problem = config.problem()?;
        let evaluator = Evaluator::new(&problem, &case.objectives, 301)?;
        let clock = Instant::now();
        let exact = exact_front(&problem, &evaluator, &Silent)?;
        let exact_seconds = clock.elapsed().as_secs_f64();
        let front: Vec<&Evaluated> = exact.front.iter().map(|&i| &exact.nodes[i]).collect();
        let raw: Vec<Vec<f64>> = front.iter().map(|n| n.values.values.clone()).collect();
        let directed: Vec<Vec<f64>> = front
            .iter()
            .map(|n| oriented(&evaluator, &n.values.values))
            .collect();
        let (mut ce, mut ce_mean, mut rr, mut evaluations, mut ms) =
            (vec![], vec![], vec![], vec![], vec![]);
        for seed in 0..runs as u64 {
            let spec = EaSpec {
                population: 25,
                iterations: 100,
                p_cross: 0.8,
                p_mut: Some(0.125),
                eps: Some(case.eps.clone()),
                seed,
            };
            let clock = Instant::now();
            let found = pbg_ea(&problem, &evaluator, &spec, &Silent)?;
            ms.push(clock.elapsed().as_secs_f64() * 1000.0);
            let archive_raw: Vec<Vec<f64>> = found
                .archive
                .iter()
                .map(|n| n.values.values.clone())
                .collect();
            let archive_directed: Vec<Vec<f64>> = found
                .archive
                .iter()
                .map(|n| oriented(&evaluator, &n.values.values))
                .collect();
            let sum = convergence_error(&raw, &archive_raw);
            ce.push(sum);
            ce_mean.push(sum / found.archive.len().max(1) as f64);
            rr.push(representation_ratio(
                &directed,
                &archive_directed,
                &case.eps,
            ));
            evaluations.push(found.nodes_evaluated as f64);
        }
        ms.sort_by(f64::total_cmp);
        let (ce_m, ce_v) = moments(&ce);
        let (cem_m, cem_v) = moments(&ce_mean);
        let (rr_m, rr_v) = moments(&rr);
        let (ev_m, _) = moments(&evaluations);
        outln!(
            "| {} | {} | {} | {:.2} | {:.1e} / {:.1e} | {:.1e} / {:.1e} | {:.2} / {:.1e} | {:.0} ({:.1} %) | {:.0} | {} |",
            case.name,
            problem.lattice.size(),
            exact.front.len(),
            exact_seconds,
            ce_m,
            ce_v,
            cem_m,
            cem_v,
            rr_m,
            rr_v,
            ev_m,
            100.0 * ev_m / problem.lattice.size() as f64,
            ms[ms.len() / 2],
            case.paper
        );
    }
    Ok(())
}
