//! Set-based safety's perfect-matching reduction (`cellsafe::criteria::matching`: one
//! maximum flow plus strongly connected components), ours against petgraph 0.8's
//! algorithms on the same problems (`cellsafe_bench::matching`), on the set-based workloads
//! (linking8, Adult's set tables) and seeded synthetic bipartite graphs from sparse to about
//! Adult's size (12,458 person types and 485,542 links for the original table).
//!
//! - `perfect-matching reduction`: `matching::usable`, the whole reduction;
//! - `perfect matching`: ours (Dinic on the compressed graph) against petgraph's `dinics`
//!   and `ford_fulkerson` on the same network (the latter up to 20,000 edges: it takes 6.5 s
//!   and 39 s per run on the two large synthetic graphs) and `maximum_matching` on the
//!   expanded graph (up to 10⁶ links);
//! - `components`: the usable edges given ours' perfect matching, the residual graph built
//!   each time: ours (iterative Tarjan on compressed sparse rows) against petgraph's
//!   `kosaraju_scc` on a `DiGraph` and on the same flat graph, and `TarjanScc` on it.
//!
//! `cargo bench -p cellsafe-bench --bench matching` (several minutes: the workloads are
//! loaded once, then each function runs ten samples.)

use std::hint::black_box;

use cellsafe::criteria::matching;
mod common;

use cellsafe_bench::matching as pg;
use cellsafe_bench::synth::Bipartite;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, BenchmarkId, Criterion};

type Workloads = Vec<(String, Bipartite)>;

fn workloads() -> Workloads {
    let all = pg::set_based_workloads().expect("the workloads load");
    for (name, g) in &all {
        assert!(
            matching::usable(&g.left, &g.right, &g.edges).is_some(),
            "{name}: a perfect matching exists"
        );
    }
    all
}

fn label(name: &str, g: &Bipartite) -> String {
    format!(
        "{name}: {}x{} types, {} edges, {} links",
        g.left.len(),
        g.right.len(),
        g.edges.len(),
        pg::links(g)
    )
}

fn bench<T>(
    group: &mut BenchmarkGroup<'_, criterion::measurement::WallTime>,
    what: &str,
    name: &str,
    g: &Bipartite,
    f: impl Fn(&Bipartite) -> T,
) {
    group.bench_function(BenchmarkId::new(what, label(name, g)), |b| {
        b.iter(|| black_box(f(black_box(g))))
    });
}

fn all(c: &mut Criterion) {
    let workloads = workloads();

    let mut group = c.benchmark_group("perfect-matching reduction");
    for (name, g) in &workloads {
        bench(&mut group, "ours", name, g, |g| {
            matching::usable(&g.left, &g.right, &g.edges)
        });
    }
    group.finish();

    let mut group = c.benchmark_group("perfect matching");
    for (name, g) in &workloads {
        bench(&mut group, "ours", name, g, |g| {
            matching::perfect_matching(&g.left, &g.right, &g.edges)
        });
        bench(&mut group, "petgraph dinics", name, g, pg::dinics);
        if g.edges.len() <= 20_000 {
            bench(
                &mut group,
                "petgraph ford_fulkerson",
                name,
                g,
                pg::ford_fulkerson,
            );
        }
        if pg::links(g) <= 1_000_000 {
            bench(
                &mut group,
                "petgraph maximum_matching expanded",
                name,
                g,
                pg::expanded_maximum_matching,
            );
        }
    }
    group.finish();

    let mut group = c.benchmark_group("components");
    for (name, g) in &workloads {
        let m = matching::perfect_matching(&g.left, &g.right, &g.edges).expect("perfect");
        bench(&mut group, "ours", name, g, |g| {
            matching::usable_with(&g.left, &g.right, &g.edges, &m)
        });
        bench(&mut group, "petgraph kosaraju_scc DiGraph", name, g, |g| {
            pg::kosaraju_digraph(g, &m)
        });
        bench(&mut group, "petgraph kosaraju_scc flat", name, g, |g| {
            pg::kosaraju_flat(g, &m)
        });
        bench(&mut group, "petgraph TarjanScc flat", name, g, |g| {
            pg::tarjan_flat(g, &m)
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = common::quick();
    targets = all
}
criterion_main!(benches);
