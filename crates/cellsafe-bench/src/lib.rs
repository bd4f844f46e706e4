//! Benchmarks and seeded synthetic data for cellsafe, kept out of the library and the
//! `cellsafe` command: the bundled Adult data ([`adult`]), synthetic tables, disclosure
//! instances and matching workloads ([`synth`]), the Adult search scenarios ([`scenarios`]), the perfect-matching reduction's
//! set-based workloads and petgraph's algorithms on them ([`matching`]), and the timing
//! helper of the `cellsafe-bench` binary ([`timing`]). The criterion benches in `benches/`
//! use them too.

pub mod adult;
pub mod matching;
pub mod scenarios;
pub mod synth;
pub mod timing;
