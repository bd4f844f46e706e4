//! Several objectives at once (paper 003): property based generalizations, Pareto
//! dominance, the box archive, and the PBG-EA search.

pub mod front;
