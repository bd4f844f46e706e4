//! The Adult search scenarios the `search` command and the `search` criterion bench share:
//! k-anonymity with 0, 1 and 5 % suppression under Loss, DM, distinct l-diversity,
//! t-closeness, and all 12,960 nodes of the nine-attribute lattice.

use anyhow::Result;
use cellsafe::algorithm::problem::Problem;
use cellsafe::criteria::{Distance, ModelSpec};
use cellsafe::data::Role;
use cellsafe::job::config::Config;
use cellsafe::metric::{MetricKind, MetricSpec};

/// One search problem on Adult.
pub struct Scenario {
    /// How tables name it.
    pub name: &'static str,
    /// All nine columns are quasi-identifiers (else occupation is sensitive).
    pub all_quasi: bool,
    /// The privacy models.
    pub models: Vec<ModelSpec>,
    /// The suppression limit.
    pub limit: f64,
    /// The metric.
    pub metric: MetricKind,
}

/// The seven scenarios of `cellsafe-bench search` and of the `search` criterion bench.
pub fn scenarios() -> Vec<Scenario> {
    let k5 = || vec![ModelSpec::KAnonymity { k: 5 }];
    let occ = || "occupation".to_string();
    vec![
        Scenario {
            name: "k=5 0% Loss",
            all_quasi: false,
            models: k5(),
            limit: 0.0,
            metric: MetricKind::Loss,
        },
        Scenario {
            name: "k=5 1% Loss",
            all_quasi: false,
            models: k5(),
            limit: 0.01,
            metric: MetricKind::Loss,
        },
        Scenario {
            name: "k=5 5% Loss",
            all_quasi: false,
            models: k5(),
            limit: 0.05,
            metric: MetricKind::Loss,
        },
        Scenario {
            name: "k=5 1% DM",
            all_quasi: false,
            models: k5(),
            limit: 0.01,
            metric: MetricKind::Discernibility,
        },
        Scenario {
            name: "distinct l=3 5% Loss",
            all_quasi: false,
            models: vec![ModelSpec::DistinctLDiversity {
                attribute: occ(),
                l: 3.0,
            }],
            limit: 0.05,
            metric: MetricKind::Loss,
        },
        Scenario {
            name: "t=0.2 equal 5% Loss",
            all_quasi: false,
            models: vec![ModelSpec::TCloseness {
                attribute: occ(),
                t: 0.2,
                distance: Distance::Equal,
            }],
            limit: 0.05,
            metric: MetricKind::Loss,
        },
        Scenario {
            name: "9 QIs k=5 0% DM",
            all_quasi: true,
            models: k5(),
            limit: 0.0,
            metric: MetricKind::Discernibility,
        },
    ]
}

/// The problem of scenario `s` over the Adult job `config`.
pub fn problem(config: &Config, s: &Scenario) -> Result<Problem> {
    let mut config = config.clone();
    if s.all_quasi {
        if let Some(a) = config.attributes.get_mut("occupation") {
            a.role = Role::QuasiIdentifying;
        }
    }
    config.privacy = s.models.clone();
    config.suppression_limit = s.limit;
    config.metric = MetricSpec {
        name: s.metric,
        ..MetricSpec::default()
    };
    Ok(config.problem()?)
}
