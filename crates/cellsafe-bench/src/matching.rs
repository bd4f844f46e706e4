//! The perfect-matching reduction of set-based safety (`cellsafe::criteria::matching`)
//! against petgraph 0.8, for `benches/matching.rs` and `tests/matching.rs`: the graphs
//! set-based safety builds ([`of_set_table`], [`set_based_workloads`]) and petgraph's
//! algorithms run on the same problems.
//!
//! The perfect matching, ours being Dinic on the compressed graph: [`dinics`] and
//! [`ford_fulkerson`] on the same flow network, [`expanded_maximum_matching`] on the
//! expanded graph (one node per person and per record, which is what an unweighted
//! matching needs). The usable edges given a perfect matching, ours being an iterative
//! Tarjan on compressed sparse rows ([`cellsafe::criteria::matching::usable_with`]):
//! [`kosaraju_digraph`] (`kosaraju_scc` on a `DiGraph`), [`kosaraju_flat`] and
//! [`tarjan_flat`] (`kosaraju_scc` and `TarjanScc` on a flat graph like ours, [`Flat`]).
//! Every variant returns what the library does, so the tests can compare answers.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use cellsafe::algorithm::setbased::{self, SetTable};
use cellsafe::job::config::Config;
use cellsafe::observer::Silent;
use petgraph::graph::{DiGraph, NodeIndex, UnGraph};

use crate::synth::{bipartite, Bipartite};

/// The compressed person–record graph `SetTable::safety` hands to
/// `matching::usable`: person types (exact public tuples) with their counts, record types
/// (generalized public tuples) with theirs, and the compatible pairs.
pub fn of_set_table(t: &SetTable) -> Bipartite {
    let (n, m1) = (t.rows(), t.problem.data.quasi.len());
    let has = |bits: &[u64], v: usize| bits[v / 64] >> (v % 64) & 1 == 1;
    let mut person_index: HashMap<Vec<u32>, u32> = HashMap::new();
    let mut person_tuples: Vec<Vec<u32>> = Vec::new();
    let mut left: Vec<u32> = Vec::new();
    for r in 0..n {
        let tuple: Vec<u32> = (0..m1).map(|j| t.original[j][r]).collect();
        let next = left.len() as u32;
        let p = *person_index.entry(tuple.clone()).or_insert_with(|| {
            left.push(0);
            person_tuples.push(tuple);
            next
        });
        left[p as usize] += 1;
    }
    let mut record_index: HashMap<Vec<u64>, u32> = HashMap::new();
    let mut first_row: Vec<usize> = Vec::new();
    let mut right: Vec<u32> = Vec::new();
    for r in 0..n {
        let key: Vec<u64> = (0..m1).flat_map(|j| t.cell(r, j).to_vec()).collect();
        let next = right.len() as u32;
        let q = *record_index.entry(key).or_insert_with(|| {
            right.push(0);
            first_row.push(r);
            next
        });
        right[q as usize] += 1;
    }
    // persons by their values in the columns where a record type is exact
    let mut by_pattern: HashMap<Vec<usize>, HashMap<Vec<u32>, Vec<u32>>> = HashMap::new();
    let mut edges = Vec::new();
    for (q, &r) in first_row.iter().enumerate() {
        let exact: Vec<usize> = (0..m1).filter(|&j| !t.is_generalized(r, j)).collect();
        let index = by_pattern.entry(exact.clone()).or_insert_with(|| {
            let mut index: HashMap<Vec<u32>, Vec<u32>> = HashMap::new();
            for (p, tuple) in person_tuples.iter().enumerate() {
                let key = exact.iter().map(|&j| tuple[j]).collect();
                index.entry(key).or_default().push(p as u32);
            }
            index
        });
        let key: Vec<u32> = exact.iter().map(|&j| t.original[j][r]).collect();
        for &p in index.get(&key).map_or(&[][..], |v| v.as_slice()) {
            let tuple = &person_tuples[p as usize];
            if (0..m1).all(|j| has(t.cell(r, j), tuple[j] as usize)) {
                edges.push((p, q as u32));
            }
        }
    }
    Bipartite { left, right, edges }
}

/// The set-based workloads, named: linking8 (`examples/papers/linking8-setbased.toml`) as
/// it is and as the set-based search releases it; Adult with `adult-safety.toml`'s
/// `[safety]` as a set table, as it is, at the middle level of every quasi-identifier and
/// at the minimal safe node with the fewest generalized cells (what the set-based search
/// is compared with); and the seeded synthetic graphs of `benches/matching.rs`.
pub fn set_based_workloads() -> Result<Vec<(String, Bipartite)>> {
    let mut out = Vec::new();
    let papers = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/papers");
    let config = Config::from_file(&papers.join("linking8-setbased.toml"))?;
    let problem = config.problem()?;
    let spec = &config.search.set_based;
    let original = SetTable::new(&problem, &spec.families())?;
    out.push(("linking8".to_owned(), of_set_table(&original)));
    let (released, _) = setbased::run(&problem, spec)?;
    out.push(("linking8 released".to_owned(), of_set_table(&released)));

    let problem = crate::adult::safety_config()?.problem()?;
    let mut table = SetTable::new(&problem, &Default::default())?;
    out.push(("Adult".to_owned(), of_set_table(&table)));
    let middle: Vec<u8> = problem.data.max_levels().iter().map(|m| m / 2).collect();
    let minimal = cellsafe::algorithm::minimal(&problem, &Silent)?
        .minimal
        .iter()
        .map(|e| {
            (
                setbased::level_based_cells(&problem, &e.levels),
                e.levels.clone(),
            )
        })
        .min()
        .expect("Adult has a minimal safe node")
        .1;
    for levels in [middle, minimal] {
        table.apply_levels(&levels)?;
        out.push((format!("Adult {levels:?}"), of_set_table(&table)));
    }

    for (persons, left, right, extra) in SYNTHETIC {
        out.push((
            format!("synthetic {persons}+{extra}"),
            bipartite(persons, left, right, extra, 1),
        ));
    }
    Ok(out)
}

/// The synthetic graphs (persons, left types, right types, extra edges per left type) of
/// `benches/matching.rs`, from sparse to about Adult's size.
pub const SYNTHETIC: [(usize, usize, usize, usize); 3] = [
    (2_000, 1_000, 1_000, 4),
    (30_000, 12_000, 12_000, 4),
    (30_000, 12_000, 12_000, 40),
];

/// Links of the expanded graph: Σ a_p · b_q over the edges.
pub fn links(g: &Bipartite) -> u64 {
    g.edges
        .iter()
        .map(|&(p, q)| g.left[p as usize] as u64 * g.right[q as usize] as u64)
        .sum()
}

/// One person per type, left type i joined to right types i and i + 1: the residual graph
/// of the perfect matching i–i holds a path through all 2n types, so a depth-first search
/// goes 2n deep.
pub fn chain(n: u32) -> Bipartite {
    Bipartite {
        left: vec![1; n as usize],
        right: vec![1; n as usize],
        edges: (0..n)
            .flat_map(|i| std::iter::once((i, i)).chain((i + 1 < n).then_some((i, i + 1))))
            .collect(),
    }
}

// ---------------------------------------------------------------------------------------
// The perfect matching
// ---------------------------------------------------------------------------------------

type Network = (DiGraph<(), u64, u32>, NodeIndex<u32>, NodeIndex<u32>);

/// The flow network of `matching::perfect_matching`: source → left type (a_p), left →
/// right type (unbounded), right type → sink (b_q). The type edges come first, so their
/// flows are the first entries of petgraph's flow vector.
fn network(g: &Bipartite) -> Network {
    let (np, nq) = (g.left.len(), g.right.len());
    let mut net = DiGraph::with_capacity(np + nq + 2, np + nq + g.edges.len());
    for _ in 0..np + nq + 2 {
        net.add_node(());
    }
    let node = NodeIndex::new;
    for &(p, q) in &g.edges {
        net.add_edge(node(p as usize), node(np + q as usize), u64::MAX / 4);
    }
    let (source, sink) = (node(np + nq), node(np + nq + 1));
    for (p, &a) in g.left.iter().enumerate() {
        net.add_edge(source, node(p), a as u64);
    }
    for (q, &b) in g.right.iter().enumerate() {
        net.add_edge(node(np + q), sink, b as u64);
    }
    (net, source, sink)
}

fn perfect(g: &Bipartite, (value, mut flows): (u64, Vec<u64>)) -> Option<Vec<u64>> {
    flows.truncate(g.edges.len());
    (value == g.left.iter().map(|&a| a as u64).sum::<u64>()).then_some(flows)
}

/// A perfect matching (links per edge) by petgraph's `dinics`; `None` if there is none.
pub fn dinics(g: &Bipartite) -> Option<Vec<u64>> {
    let (net, source, sink) = network(g);
    perfect(g, petgraph::algo::dinics(&net, source, sink))
}

/// A perfect matching by petgraph's `ford_fulkerson` (Edmonds–Karp).
pub fn ford_fulkerson(g: &Bipartite) -> Option<Vec<u64>> {
    let (net, source, sink) = network(g);
    perfect(g, petgraph::algo::ford_fulkerson(&net, source, sink))
}

/// A perfect matching by petgraph's `maximum_matching` on the expanded graph (one node
/// per person and per record, one edge per link), folded back to links per type edge.
pub fn expanded_maximum_matching(g: &Bipartite) -> Option<Vec<u64>> {
    let starts = |counts: &[u32], from: u32| -> Vec<u32> {
        let mut s = vec![from];
        for &c in counts {
            s.push(s.last().expect("non-empty") + c);
        }
        s
    };
    let persons: u32 = g.left.iter().sum();
    let (ls, rs) = (starts(&g.left, 0), starts(&g.right, persons));
    let mut expanded: UnGraph<(), u32, u32> =
        UnGraph::with_capacity(2 * persons as usize, links(g) as usize);
    for _ in 0..2 * persons {
        expanded.add_node(());
    }
    for (e, &(p, q)) in g.edges.iter().enumerate() {
        for u in ls[p as usize]..ls[p as usize + 1] {
            for v in rs[q as usize]..rs[q as usize + 1] {
                expanded.add_edge(
                    NodeIndex::new(u as usize),
                    NodeIndex::new(v as usize),
                    e as u32,
                );
            }
        }
    }
    let matching = petgraph::algo::maximum_matching(&expanded);
    if matching.len() != persons as usize {
        return None;
    }
    let mut on = vec![0u64; g.edges.len()];
    for (a, b) in matching.edges() {
        let edge = expanded.find_edge(a, b)?;
        on[expanded[edge] as usize] += 1;
    }
    Some(on)
}

// ---------------------------------------------------------------------------------------
// The usable edges given a perfect matching
// ---------------------------------------------------------------------------------------

/// The residual graph's arcs: p → q for every edge, q → p where it carries links (left
/// types are nodes `0..np`, right types follow).
fn residual_arcs(g: &Bipartite, matching: &[u64]) -> Vec<(u32, u32)> {
    let np = g.left.len() as u32;
    let mut arcs = Vec::with_capacity(2 * g.edges.len());
    for (&(p, q), &m) in g.edges.iter().zip(matching) {
        arcs.push((p, np + q));
        if m > 0 {
            arcs.push((np + q, p));
        }
    }
    arcs
}

fn usable_from(g: &Bipartite, matching: &[u64], component: &[u32]) -> Vec<bool> {
    let np = g.left.len();
    g.edges
        .iter()
        .zip(matching)
        .map(|(&(p, q), &m)| m > 0 || component[p as usize] == component[np + q as usize])
        .collect()
}

fn component_ids(n: usize, sccs: impl IntoIterator<Item = Vec<u32>>) -> Vec<u32> {
    let mut component = vec![0; n];
    for (c, scc) in sccs.into_iter().enumerate() {
        for v in scc {
            component[v as usize] = c as u32;
        }
    }
    component
}

/// The usable edges by petgraph's `kosaraju_scc` on a `DiGraph` of the residual graph.
pub fn kosaraju_digraph(g: &Bipartite, matching: &[u64]) -> Vec<bool> {
    let n = g.left.len() + g.right.len();
    let mut residual: DiGraph<(), (), u32> = DiGraph::with_capacity(n, 2 * g.edges.len());
    for _ in 0..n {
        residual.add_node(());
    }
    residual.extend_with_edges(residual_arcs(g, matching));
    let sccs = petgraph::algo::kosaraju_scc(&residual)
        .into_iter()
        .map(|c| c.into_iter().map(|v| v.index() as u32).collect());
    usable_from(g, matching, &component_ids(n, sccs))
}

/// The usable edges by petgraph's `kosaraju_scc` on the residual graph as a [`Flat`].
pub fn kosaraju_flat(g: &Bipartite, matching: &[u64]) -> Vec<bool> {
    let n = g.left.len() + g.right.len();
    let residual = Flat::new(n, &residual_arcs(g, matching));
    let component = component_ids(n, petgraph::algo::kosaraju_scc(&residual));
    usable_from(g, matching, &component)
}

/// The usable edges by petgraph's `TarjanScc` on the residual graph as a [`Flat`].
/// Recursive: one stack frame per node of a depth-first path.
pub fn tarjan_flat(g: &Bipartite, matching: &[u64]) -> Vec<bool> {
    let n = g.left.len() + g.right.len();
    let residual = Flat::new(n, &residual_arcs(g, matching));
    let mut component = vec![0; n];
    let mut next = 0;
    petgraph::algo::TarjanScc::new().run(&residual, |scc| {
        for &v in scc {
            component[v as usize] = next;
        }
        next += 1;
    });
    usable_from(g, matching, &component)
}

/// A directed graph in compressed sparse rows, out- and in-arcs, with the petgraph traits
/// its strongly-connected-component algorithms need: the library's own graph layout under
/// petgraph's algorithms.
pub struct Flat {
    out: Rows,
    inc: Rows,
}

/// Node `v`'s heads are `head[start[v]..start[v + 1]]`.
struct Rows {
    start: Vec<u32>,
    head: Vec<u32>,
}

impl Rows {
    fn new(n: usize, arcs: impl Iterator<Item = (u32, u32)> + Clone) -> Rows {
        let mut start = vec![0u32; n + 1];
        for (tail, _) in arcs.clone() {
            start[tail as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut head = vec![0u32; start[n] as usize];
        for (tail, to) in arcs {
            head[fill[tail as usize] as usize] = to;
            fill[tail as usize] += 1;
        }
        Rows { start, head }
    }

    fn of(&self, v: u32) -> Neighbors<'_> {
        let v = v as usize;
        self.head[self.start[v] as usize..self.start[v + 1] as usize]
            .iter()
            .copied()
    }
}

impl Flat {
    /// The graph on nodes `0..n` with `arcs` (tail, head).
    pub fn new(n: usize, arcs: &[(u32, u32)]) -> Flat {
        Flat {
            out: Rows::new(n, arcs.iter().copied()),
            inc: Rows::new(n, arcs.iter().map(|&(a, b)| (b, a))),
        }
    }
}

type Neighbors<'a> = std::iter::Copied<std::slice::Iter<'a, u32>>;

mod traits {
    use fixedbitset::FixedBitSet;
    use petgraph::visit::{
        GraphBase, IntoNeighbors, IntoNeighborsDirected, IntoNodeIdentifiers, NodeIndexable,
        Visitable,
    };
    use petgraph::Direction;

    use super::{Flat, Neighbors};

    impl GraphBase for Flat {
        type NodeId = u32;
        type EdgeId = ();
    }
    impl<'a> IntoNeighbors for &'a Flat {
        type Neighbors = Neighbors<'a>;
        fn neighbors(self, v: u32) -> Neighbors<'a> {
            self.out.of(v)
        }
    }
    impl<'a> IntoNeighborsDirected for &'a Flat {
        type NeighborsDirected = Neighbors<'a>;
        fn neighbors_directed(self, v: u32, d: Direction) -> Neighbors<'a> {
            match d {
                Direction::Outgoing => self.out.of(v),
                Direction::Incoming => self.inc.of(v),
            }
        }
    }
    impl IntoNodeIdentifiers for &Flat {
        type NodeIdentifiers = std::ops::Range<u32>;
        fn node_identifiers(self) -> Self::NodeIdentifiers {
            0..self.node_bound() as u32
        }
    }
    impl NodeIndexable for Flat {
        fn node_bound(&self) -> usize {
            self.out.start.len() - 1
        }
        fn to_index(&self, v: u32) -> usize {
            v as usize
        }
        fn from_index(&self, i: usize) -> u32 {
            i as u32
        }
    }
    impl Visitable for Flat {
        type Map = FixedBitSet;
        fn visit_map(&self) -> FixedBitSet {
            FixedBitSet::with_capacity(self.node_bound())
        }
        fn reset_map(&self, map: &mut FixedBitSet) {
            map.clear();
            map.grow(self.node_bound());
        }
    }
}
