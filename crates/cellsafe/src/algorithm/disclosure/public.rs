//! A lattice search that is public (paper 001): the recipient knows the search, so the
//! release is judged against an adversary who re-runs it on every table consistent with
//! what was released. The chain of generalizations is every node the search would have
//! preferred, then the node it found; the exclusive strategy decides what may be released.

use std::sync::Arc;

use rayon::prelude::*;

use super::{Check, Decision, Disclosure, Instance, Options, Partition, ReleaseTest, Strategy};
use crate::algorithm::problem::{Evaluation, Problem};
use crate::algorithm::score_order;
use crate::criteria::{Model, ModelSpec};
use crate::data::Role;
use crate::error::{DisclosureError, Result};
use crate::framework::lattice::tie_order;
use crate::metric::Score;
use crate::observer::{Observer, Stage, SEARCH};

/// How a public search is judged: the property the adversary's beliefs must satisfy, how
/// disclosure sets are assessed, and the strategy (exclusive unless said otherwise).
#[derive(Debug, Clone)]
pub struct PublicSearch {
    /// The property every person's belief must satisfy.
    pub check: Check,
    /// How disclosure sets are assessed.
    pub options: Options,
    /// Inclusive or exclusive use of the chain.
    pub strategy: Strategy,
}

/// Decides what a public search may release when it found `best`: the evaluation of the
/// released node (`None`: nothing may be released) and the decision that chose it.
pub(crate) fn decide(
    problem: &Problem,
    best: &Evaluation,
    public: &PublicSearch,
    observer: &dyn Observer,
) -> Result<(Option<Evaluation>, Decision)> {
    if let Some(m) = problem
        .models
        .iter()
        .find(|m| m.sample_based().is_some() || m.presence().is_some())
    {
        return Err(DisclosureError::NotClassLocal(m.spec.name()).into());
    }
    let (disclosure, nodes) = chain(problem, &best.levels, public.check, observer)?;
    let decision = disclosure.decide_observed(public.strategy, &public.options, observer)?;
    let released = decision
        .released
        .map(|i| problem.evaluate(&nodes[i - 1]))
        .transpose()?;
    Ok((released, decision))
}

/// The disclosure problem of a public search that found `best`: the chain is every node
/// that scores better than `best` (in the search's order: score, then level sum and
/// lexicographic order) and that the privacy models could accept for some table, followed
/// by `best`. The release test is the models themselves (without suppression), so an
/// adversary who re-runs the search on a candidate table excludes it exactly when the
/// search would have stopped earlier. Nodes with a class smaller than k can never be
/// accepted and are left out. Returns the levels of each node of the chain as well.
/// Finding the better nodes evaluates every node, reported to `observer` as a [`SEARCH`]
/// stage.
fn chain(
    problem: &Problem,
    best: &[u8],
    check: Check,
    observer: &dyn Observer,
) -> Result<(Disclosure, Vec<Vec<u8>>)> {
    problem
        .data
        .unweighted("a public search (its persons are rows)")?;
    if problem.max_suppressed > 0 {
        return Err(DisclosureError::PublicSearchSuppresses.into());
    }
    // the release test sees only the sensitive attribute's histogram
    if let Some(i) = problem
        .models
        .iter()
        .position(|m| matches!(m.spec, ModelSpec::LogicalSafety))
    {
        return Err(DisclosureError::LogicalSafetyTest(i).into());
    }
    let data = &problem.data;
    let [sensitive] = data.sensitive.as_slice() else {
        return Err(DisclosureError::SensitiveCount(data.sensitive.len()).into());
    };
    let identifier = data.roles.iter().position(|&r| r == Role::Identifying);
    let persons = (0..data.rows())
        .map(|r| match identifier {
            Some(c) => data.table.value(r, c).to_owned(),
            None => format!("line {}", data.table.line(r)),
        })
        .collect();
    let codes = sensitive.codes.iter().map(|&c| c as u16).collect();
    let instance = Instance::new(persons, sensitive.values.clone(), codes)?;

    let best_score = problem.evaluate(best)?.score;
    let k = problem.min_class_size();
    let hierarchies = problem.hierarchies();
    let size = problem.lattice.size();
    let stage = Stage::start(observer, SEARCH, Some(size as u64));
    let mut better: Vec<(Vec<u8>, Score, Vec<u32>)> = (0..size)
        .into_par_iter()
        .map(|index| {
            stage.check()?;
            let levels = problem.lattice.levels(index);
            let classes = problem.classes(&levels);
            stage.add(1);
            if classes.counts.iter().any(|&c| c < k) {
                return Ok(None);
            }
            let (evaluation, _) = problem.assess(&levels, &classes);
            let order =
                score_order(&evaluation.score, &best_score).then_with(|| tie_order(&levels, best));
            Ok(order.is_lt().then(|| {
                let rows = problem
                    .snapshot
                    .row_classes(&hierarchies, &classes, &levels);
                (levels, evaluation.score, rows)
            }))
        })
        .filter_map(Result::transpose)
        .collect::<Result<_>>()?;
    drop(stage);
    better.sort_by(|a, b| score_order(&a.1, &b.1).then_with(|| tie_order(&a.0, &b.0)));
    let mut nodes = Vec::with_capacity(better.len() + 1);
    let mut chain = Vec::with_capacity(better.len() + 1);
    for (levels, _, rows) in better {
        chain.push(Partition::from_labels(format!("levels {levels:?}"), &rows));
        nodes.push(levels);
    }
    nodes.push(best.to_vec());
    let classes = problem.classes(best);
    let rows = problem.snapshot.row_classes(&hierarchies, &classes, best);
    chain.push(Partition::from_labels(format!("levels {best:?}"), &rows));

    let models: Vec<Model> = problem
        .models
        .iter()
        .filter(|m| m.min_class_size().is_none())
        .cloned()
        .collect();
    let test = move |hist: &[u128], size: u128| -> bool {
        if size < k as u128 {
            return false;
        }
        let hist: Vec<u32> = hist.iter().map(|&c| c as u32).collect();
        models.iter().all(|m| m.holds(size as u32, &hist))
    };
    let mut disclosure = Disclosure::new(instance, chain, check)?;
    disclosure.release_test = Some(ReleaseTest(Arc::new(test)));
    Ok((disclosure, nodes))
}
