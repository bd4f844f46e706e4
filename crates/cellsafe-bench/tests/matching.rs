//! The workloads of `benches/matching.rs` are the graphs set-based safety tests, its
//! petgraph variants answer what the library does, and the reason the library keeps its
//! own strongly-connected-components code: petgraph's `TarjanScc` recurses once per node of
//! a depth-first path.

use cellsafe::algorithm::setbased::SetTable;
use cellsafe::criteria::matching;
use cellsafe_bench::matching as pg;
use cellsafe_bench::synth::Bipartite;

fn check(name: &str, g: &Bipartite) {
    let usable = matching::usable(&g.left, &g.right, &g.edges).expect("a perfect matching");
    let ours = matching::perfect_matching(&g.left, &g.right, &g.edges).unwrap();
    let mut matchings = vec![("dinics", pg::dinics(g))];
    if g.edges.len() <= 20_000 {
        matchings.push(("ford_fulkerson", pg::ford_fulkerson(g)));
    }
    if pg::links(g) <= 1_000_000 {
        matchings.push(("maximum_matching", pg::expanded_maximum_matching(g)));
    }
    for (what, m) in matchings {
        let m = m.unwrap_or_else(|| panic!("{name}: {what} finds no perfect matching"));
        let via = matching::usable_with(&g.left, &g.right, &g.edges, &m);
        assert_eq!(via, usable, "{name}: {what}");
    }
    for (what, f) in [
        (
            "kosaraju DiGraph",
            pg::kosaraju_digraph as fn(&Bipartite, &[u64]) -> Vec<bool>,
        ),
        ("kosaraju flat", pg::kosaraju_flat),
        ("tarjan flat", pg::tarjan_flat),
    ] {
        assert_eq!(f(g, &ours), usable, "{name}: {what}");
    }
}

#[test]
fn petgraph_variants_agree_with_the_library() {
    for (name, g) in pg::set_based_workloads().unwrap() {
        if g.edges.len() <= 100_000 {
            check(&name, &g);
        }
    }
    check("chain", &pg::chain(1_000));
    // the chain's middle edges lie on no other perfect matching
    let g = pg::chain(5);
    let usable = matching::usable(&g.left, &g.right, &g.edges).unwrap();
    assert_eq!(usable.iter().filter(|&&u| u).count(), 5);
}

/// `of_set_table` builds the graph `SetTable::safety` tests: the same types, links and
/// links on some perfect matching.
#[test]
fn of_set_table_is_the_graph_of_set_based_safety() {
    let config = cellsafe_bench::adult::safety_config().unwrap();
    let problem = config.problem().unwrap();
    let mut table = SetTable::new(&problem, &Default::default()).unwrap();
    for levels in [None, Some([0, 2, 0, 1, 1, 1, 1, 0])] {
        if let Some(levels) = levels {
            table.apply_levels(&levels).unwrap();
        }
        let g = pg::of_set_table(&table);
        let verdict = table.safety(0);
        let usable = matching::usable(&g.left, &g.right, &g.edges).unwrap();
        let reduced: u64 = g
            .edges
            .iter()
            .zip(&usable)
            .filter(|(_, &u)| u)
            .map(|(&(p, q), _)| g.left[p as usize] as u64 * g.right[q as usize] as u64)
            .sum();
        assert_eq!(
            (g.left.len(), g.right.len(), pg::links(&g), reduced),
            (
                verdict.person_types,
                verdict.record_types,
                verdict.links,
                verdict.reduced_links
            ),
            "{levels:?}"
        );
    }
}

/// Set by the parent test in the child process it starts.
const CHILD: &str = "CELLSAFE_BENCH_TARJAN_CHILD";

/// Components of a chain of 100,000 types per side in a thread with a 2 MiB stack: ours
/// (an explicit stack) finishes; petgraph's `TarjanScc`, run in a child process, overflows
/// the stack and the process aborts.
#[test]
fn petgraph_tarjan_overflows_a_small_stack_on_a_long_chain() {
    let g = pg::chain(100_000);
    let m = matching::perfect_matching(&g.left, &g.right, &g.edges).unwrap();
    let ours = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || matching::usable_with(&g.left, &g.right, &g.edges, &m).len())
        .unwrap()
        .join()
        .unwrap();
    assert_eq!(ours, 199_999);
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "petgraph_tarjan_in_a_small_stack",
            "--include-ignored",
        ])
        .env(CHILD, "1")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&child.stderr);
    assert!(!child.status.success(), "petgraph's TarjanScc finished");
    assert!(stderr.contains("overflowed its stack"), "{stderr}");
}

/// The child process of the test above; does nothing unless started by it.
#[test]
#[ignore = "started as a child process by petgraph_tarjan_overflows_a_small_stack_on_a_long_chain"]
fn petgraph_tarjan_in_a_small_stack() {
    if std::env::var_os(CHILD).is_none() {
        return;
    }
    let g = pg::chain(100_000);
    let m = matching::perfect_matching(&g.left, &g.right, &g.edges).unwrap();
    std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || pg::tarjan_flat(&g, &m).len())
        .unwrap()
        .join()
        .unwrap();
}
