//! The generalization lattice, a table with its roles resolved, and equivalence classes
//! rolled up from node to node.

pub mod classes;
pub mod dataset;
pub mod lattice;
#[cfg(test)]
pub(crate) mod test_support;
