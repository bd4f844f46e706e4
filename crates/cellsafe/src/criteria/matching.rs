//! Which person–record links lie on some perfect matching (paper 002 section 3.2, R_τ↓).
//!
//! Paper 002 tests each link by removing it and looking for a perfect matching of the
//! rest: one matching per link. Here it is one maximum flow plus strongly connected
//! components. Persons with the same public tuple are interchangeable, and so are records
//! with the same generalized public tuple, so the bipartite graph is kept compressed:
//! `left` types with multiplicities, `right` types with multiplicities, and type-to-type
//! compatibility edges. A perfect matching of the expanded graph is a feasible flow x
//! (Σ_q x_pq = a_p, Σ_p x_pq = b_q). Two feasible flows differ by cycles of the residual
//! graph (every compatibility edge forward, and backward where x_pq > 0), so an edge can
//! carry a link in some perfect matching iff x_pq > 0 or p and q share a strongly
//! connected component. With all multiplicities 1 this is the classical alternating-cycle
//! characterization of the edges of maximum matchings.
//!
//! Both parts are hand-written rather than petgraph's: measured against petgraph 0.8 on the
//! set-based workloads by `cargo bench -p cellsafe-bench --bench matching` (figures in
//! docs/performance.md; AMD EPYC, 2 cores), ours was faster or petgraph's did not fit.
//!
//! - The perfect matching ([`perfect_matching`]) is Dinic's maximum flow on the compressed
//!   graph: 0.68 ms on Adult's original table as a set table. petgraph's `dinics` on the
//!   same network took 19.9 ms (13–29× ours on Adult's tables and mid-sized synthetic
//!   graphs), `ford_fulkerson` 959 ms. `maximum_matching` is unweighted, so it needs the
//!   expanded graph: 5.05 ms there (485,542 links), out of reach once cells are
//!   generalized (2.3·10⁸ links at Adult's minimal safe node).
//! - The components ([`usable_with`]) are Tarjan's algorithm with an explicit call stack
//!   on the residual graph in compressed sparse rows: 0.235 ms on Adult's original table.
//!   petgraph's `tarjan_scc` (`TarjanScc`) is about as fast on the same graph (0.66–1.2×)
//!   but recurses once per node of a depth-first path, and a residual path can run through
//!   every type: on a chain of 100,000 types per side it overflows a 2 MiB thread stack and
//!   aborts the process. Its iterative `kosaraju_scc` took 0.79 ms on the same flat graph
//!   (0.85–3.4× ours) and up to 8.5× ours on a `DiGraph`.
//!
//! The per-link reference ([`usable_by_link_test`]) does use petgraph's
//! `maximum_matching`: code independent of the flow and components it checks.

use fixedbitset::FixedBitSet;
use petgraph::algo::maximum_matching;
use petgraph::graph::{NodeIndex, UnGraph};

/// Whether each of `edges` (left type, right type) carries a link in some perfect matching
/// of the expanded graph; `None` when there is no perfect matching at all.
pub fn usable(left: &[u32], right: &[u32], edges: &[(u32, u32)]) -> Option<Vec<bool>> {
    let matching = perfect_matching(left, right, edges)?;
    Some(usable_with(left, right, edges, &matching))
}

/// One perfect matching of the expanded graph, in compressed form: how many of its links
/// each of `edges` carries (a feasible flow, found as a maximum flow); `None` when there is
/// none.
pub fn perfect_matching(left: &[u32], right: &[u32], edges: &[(u32, u32)]) -> Option<Vec<u64>> {
    let total: u64 = left.iter().map(|&a| a as u64).sum();
    if total != right.iter().map(|&b| b as u64).sum::<u64>() {
        return None;
    }
    let flow = max_flow(left, right, edges);
    (flow.value == total).then_some(flow.on_edge)
}

/// [`usable`] given one perfect matching (`matching[e]` links on edge `e`, as from
/// [`perfect_matching`]): an edge is usable iff it carries links of `matching` or its two
/// types share a strongly connected component of the residual graph.
pub fn usable_with(
    left: &[u32],
    right: &[u32],
    edges: &[(u32, u32)],
    matching: &[u64],
) -> Vec<bool> {
    debug_assert_eq!(edges.len(), matching.len());
    let np = left.len();
    let component = Residual::new(np, right.len(), edges, matching).components();
    edges
        .iter()
        .zip(matching)
        .map(|(&(p, q), &m)| m > 0 || component[p as usize] == component[np + q as usize])
        .collect()
}

struct Flow {
    value: u64,
    on_edge: Vec<u64>,
}

/// Dinic's maximum flow from a source through `left` (capacity a_p), the edges (unbounded)
/// and `right` (capacity b_q) to a sink.
fn max_flow(left: &[u32], right: &[u32], edges: &[(u32, u32)]) -> Flow {
    let (np, nq) = (left.len(), right.len());
    let (source, sink) = (np + nq, np + nq + 1);
    let n = np + nq + 2;
    let mut g = Graph::new(n);
    for (p, &a) in left.iter().enumerate() {
        g.add(source, p, a as u64);
    }
    let first_edge = g.to.len();
    for &(p, q) in edges {
        g.add(p as usize, np + q as usize, u64::MAX / 4);
    }
    for (q, &b) in right.iter().enumerate() {
        g.add(np + q, sink, b as u64);
    }
    let value = g.dinic(source, sink);
    let on_edge = (0..edges.len())
        .map(|e| g.cap[first_edge + 2 * e + 1]) // flow = capacity of the reverse arc
        .collect();
    Flow { value, on_edge }
}

/// Arcs in pairs: arc `2k` forward, `2k + 1` its reverse.
struct Graph {
    head: Vec<usize>,
    next: Vec<usize>,
    to: Vec<usize>,
    cap: Vec<u64>,
}

const NONE: usize = usize::MAX;

impl Graph {
    fn new(n: usize) -> Graph {
        Graph {
            head: vec![NONE; n],
            next: Vec::new(),
            to: Vec::new(),
            cap: Vec::new(),
        }
    }
    fn add(&mut self, a: usize, b: usize, c: u64) {
        for (from, to, cap) in [(a, b, c), (b, a, 0)] {
            self.to.push(to);
            self.cap.push(cap);
            self.next.push(self.head[from]);
            self.head[from] = self.to.len() - 1;
        }
    }
    fn dinic(&mut self, s: usize, t: usize) -> u64 {
        let n = self.head.len();
        let mut total = 0;
        loop {
            // BFS levels
            let mut level = vec![u32::MAX; n];
            level[s] = 0;
            let mut queue = std::collections::VecDeque::from([s]);
            while let Some(v) = queue.pop_front() {
                let mut a = self.head[v];
                while a != NONE {
                    let w = self.to[a];
                    if self.cap[a] > 0 && level[w] == u32::MAX {
                        level[w] = level[v] + 1;
                        queue.push_back(w);
                    }
                    a = self.next[a];
                }
            }
            if level[t] == u32::MAX {
                return total;
            }
            // blocking flow by iterative DFS with current-arc pointers
            let mut current = self.head.clone();
            loop {
                let pushed = self.augment(s, t, &level, &mut current);
                if pushed == 0 {
                    break;
                }
                total += pushed;
            }
        }
    }
    /// One augmenting path in the level graph; returns its bottleneck (0: none left).
    fn augment(&mut self, s: usize, t: usize, level: &[u32], current: &mut [usize]) -> u64 {
        let mut path: Vec<usize> = Vec::new();
        let mut v = s;
        loop {
            if v == t {
                let bottleneck = path.iter().map(|&a| self.cap[a]).min().unwrap_or(0);
                for &a in &path {
                    self.cap[a] -= bottleneck;
                    self.cap[a ^ 1] += bottleneck;
                }
                return bottleneck;
            }
            let mut a = current[v];
            while a != NONE && !(self.cap[a] > 0 && level[self.to[a]] == level[v] + 1) {
                a = self.next[a];
            }
            current[v] = a;
            if a == NONE {
                // dead end: retreat
                match path.pop() {
                    None => return 0,
                    Some(back) => {
                        let u = self.to[back ^ 1];
                        current[u] = self.next[current[u]];
                        v = u;
                    }
                }
            } else {
                path.push(a);
                v = self.to[a];
            }
        }
    }
}

/// The residual graph of a perfect matching on P ∪ Q (P first, then Q): p → q for every
/// edge, q → p where the edge carries links. Arcs in compressed sparse rows: the heads of
/// node `v`'s arcs are `head[start[v]..start[v + 1]]`.
struct Residual {
    start: Vec<u32>,
    head: Vec<u32>,
}

impl Residual {
    fn new(np: usize, nq: usize, edges: &[(u32, u32)], matching: &[u64]) -> Residual {
        let n = np + nq;
        let arcs = || {
            edges.iter().zip(matching).flat_map(move |(&(p, q), &m)| {
                let q = np as u32 + q;
                std::iter::once((p, q)).chain((m > 0).then_some((q, p)))
            })
        };
        let mut start = vec![0u32; n + 1];
        for (tail, _) in arcs() {
            start[tail as usize + 1] += 1;
        }
        for v in 0..n {
            start[v + 1] += start[v];
        }
        let mut fill = start.clone();
        let mut head = vec![0u32; start[n] as usize];
        for (tail, to) in arcs() {
            head[fill[tail as usize] as usize] = to;
            fill[tail as usize] += 1;
        }
        Residual { start, head }
    }

    fn arcs(&self, v: usize) -> std::ops::Range<u32> {
        self.start[v]..self.start[v + 1]
    }

    /// A strongly connected component id per node, by Tarjan's algorithm with an explicit
    /// call stack (a depth-first search here can go as deep as there are types).
    fn components(&self) -> Vec<u32> {
        let n = self.start.len() - 1;
        let mut index = vec![u32::MAX; n];
        let mut low = vec![0u32; n];
        let mut on_stack = FixedBitSet::with_capacity(n);
        let mut stack = Vec::new();
        let mut component = vec![u32::MAX; n];
        // (node, its arcs not followed yet)
        let mut call: Vec<(usize, std::ops::Range<u32>)> = Vec::new();
        let (mut next_index, mut next_component) = (0u32, 0u32);
        for root in 0..n {
            if index[root] != u32::MAX {
                continue;
            }
            call.push((root, self.arcs(root)));
            index[root] = next_index;
            low[root] = next_index;
            next_index += 1;
            stack.push(root);
            on_stack.insert(root);
            while let Some((v, arcs)) = call.last_mut() {
                let v = *v;
                if let Some(a) = arcs.next() {
                    let w = self.head[a as usize] as usize;
                    if index[w] == u32::MAX {
                        index[w] = next_index;
                        low[w] = next_index;
                        next_index += 1;
                        stack.push(w);
                        on_stack.insert(w);
                        call.push((w, self.arcs(w)));
                    } else if on_stack.contains(w) {
                        low[v] = low[v].min(index[w]);
                    }
                } else {
                    call.pop();
                    if let Some((parent, _)) = call.last() {
                        low[*parent] = low[*parent].min(low[v]);
                    }
                    if low[v] == index[v] {
                        loop {
                            let w = stack.pop().expect("on the stack");
                            on_stack.remove(w);
                            component[w] = next_component;
                            if w == v {
                                break;
                            }
                        }
                        next_component += 1;
                    }
                }
            }
        }
        component
    }
}

/// The paper's per-link test on the expanded graph (persons and records one by one): a
/// link is kept iff the graph without its two endpoints has a perfect matching. Quadratic
/// and more; the reference the fast reduction is tested against.
pub fn usable_by_link_test(n: usize, links: &[(usize, usize)]) -> Vec<bool> {
    links
        .iter()
        .map(|&(u, i)| {
            let rest: Vec<(usize, usize)> = links
                .iter()
                .copied()
                .filter(|&(x, y)| x != u && y != i)
                .collect();
            matching_size(n, &rest, Some((u, i))) == n - 1
        })
        .collect()
}

/// Size of a maximum matching of persons `0..n` and records `0..n` joined by `links`
/// (person, record), leaving out the person and the record of `without`. By petgraph's
/// maximum matching (Gabow's algorithm for general graphs): code independent of the flow
/// and components above, which the per-link reference is there to check.
fn matching_size(n: usize, links: &[(usize, usize)], without: Option<(usize, usize)>) -> usize {
    let mut graph: UnGraph<(), (), u32> = UnGraph::with_capacity(2 * n, links.len());
    for _ in 0..2 * n {
        graph.add_node(());
    }
    for &(u, i) in links {
        if without.is_some_and(|(x, y)| x == u || y == i) {
            continue;
        }
        graph.add_edge(NodeIndex::new(u), NodeIndex::new(n + i), ());
    }
    maximum_matching(&graph).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The fast reduction equals the per-link test on random expanded graphs.
    #[test]
    fn reduction_equals_the_per_link_test() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        let mut with_matching = 0;
        for _ in 0..400 {
            let np = rng.gen_range(1..5);
            let left: Vec<u32> = (0..np).map(|_| rng.gen_range(1..3)).collect();
            let n: u32 = left.iter().sum();
            // split n records into right types
            let mut right = Vec::new();
            let mut left_over = n;
            while left_over > 0 {
                let b = rng.gen_range(1..=left_over.min(3));
                right.push(b);
                left_over -= b;
            }
            let p = rng.gen_range(0.2..0.9);
            let mut edges = Vec::new();
            for a in 0..left.len() as u32 {
                for b in 0..right.len() as u32 {
                    if rng.gen::<f64>() < p {
                        edges.push((a, b));
                    }
                }
            }
            // expand
            let mut person_type = Vec::new();
            for (t, &a) in left.iter().enumerate() {
                person_type.extend(std::iter::repeat_n(t as u32, a as usize));
            }
            let mut record_type = Vec::new();
            for (t, &b) in right.iter().enumerate() {
                record_type.extend(std::iter::repeat_n(t as u32, b as usize));
            }
            let mut links = Vec::new();
            for (u, &pt) in person_type.iter().enumerate() {
                for (i, &rt) in record_type.iter().enumerate() {
                    if edges.contains(&(pt, rt)) {
                        links.push((u, i));
                    }
                }
            }
            let n = n as usize;
            let fast = usable(&left, &right, &edges);
            let perfect = matching_size(n, &links, None) == n;
            assert_eq!(fast.is_some(), perfect);
            if let Some(fast) = fast {
                with_matching += 1;
                let slow = usable_by_link_test(n, &links);
                for (k, &(u, i)) in links.iter().enumerate() {
                    let e = edges
                        .iter()
                        .position(|&x| x == (person_type[u], record_type[i]))
                        .unwrap();
                    assert_eq!(fast[e], slow[k], "{left:?} {right:?} {edges:?}");
                }
            }
        }
        assert!(with_matching > 50, "{with_matching}");
    }

    /// The depth-first search goes as deep as the residual graph's longest path (here all
    /// 2n types); the explicit call stack keeps it off the thread's stack.
    #[test]
    fn a_long_chain_needs_no_deep_stack() {
        let n = 100_000u32;
        let edges: Vec<(u32, u32)> = (0..n)
            .flat_map(|i| std::iter::once((i, i)).chain((i + 1 < n).then_some((i, i + 1))))
            .collect();
        let usable = std::thread::Builder::new()
            .stack_size(256 << 10)
            .spawn(move || usable(&vec![1; n as usize], &vec![1; n as usize], &edges))
            .unwrap()
            .join()
            .unwrap()
            .unwrap();
        // the matching i–i is the only perfect one
        assert_eq!(usable.iter().filter(|&&u| u).count(), n as usize);
    }
}
