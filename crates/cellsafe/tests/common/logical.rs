//! The random logical-safety cases of the logic and release tests: formulas of the tests'
//! own over (disease, income), evaluated on strings, and the table and job they are
//! written as.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

/// A formula of the tests' own, evaluated on strings with no help from the library.
#[derive(Debug, Clone)]
pub enum F {
    Eq(usize, String),
    In(usize, Vec<String>),
    Ge(usize, f64),
    Lt(usize, f64),
    Not(Box<F>),
    And(Box<F>, Box<F>),
    Or(Box<F>, Box<F>),
    Imp(Box<F>, Box<F>),
}

const CONF: [&str; 2] = ["disease", "income"];

impl F {
    pub fn text(&self) -> String {
        match self {
            F::Eq(a, v) => format!("{} = {v}", CONF[*a]),
            F::In(a, vs) => format!("{} in {{{}}}", CONF[*a], vs.join(", ")),
            F::Ge(a, x) => format!("{} >= {x}", CONF[*a]),
            F::Lt(a, x) => format!("{} < {x}", CONF[*a]),
            F::Not(f) => format!("not ({})", f.text()),
            F::And(a, b) => format!("({}) and ({})", a.text(), b.text()),
            F::Or(a, b) => format!("({}) or ({})", a.text(), b.text()),
            F::Imp(a, b) => format!("({}) -> ({})", a.text(), b.text()),
        }
    }
    /// Truth on a record given as its confidential strings.
    pub fn eval(&self, rec: &[&str]) -> bool {
        let num = |a: usize| rec[a].trim_end_matches('K').parse::<f64>().unwrap() * 1000.0;
        match self {
            F::Eq(a, v) => rec[*a] == v,
            F::In(a, vs) => vs.iter().any(|v| v == rec[*a]),
            F::Ge(a, x) => num(*a) >= *x,
            F::Lt(a, x) => num(*a) < *x,
            F::Not(f) => !f.eval(rec),
            F::And(a, b) => a.eval(rec) && b.eval(rec),
            F::Or(a, b) => a.eval(rec) || b.eval(rec),
            F::Imp(a, b) => !a.eval(rec) || b.eval(rec),
        }
    }
}

pub const DISEASES: [&str; 3] = ["flu", "hiv", "cold"];
pub const INCOMES: [&str; 3] = ["10K", "20K", "30K"];

pub fn formula_strategy() -> impl Strategy<Value = F> {
    let leaf = prop_oneof![
        (0..3usize).prop_map(|v| F::Eq(0, DISEASES[v].into())),
        prop::sample::subsequence(DISEASES.to_vec(), 1..3)
            .prop_map(|vs| F::In(0, vs.iter().map(|s| s.to_string()).collect())),
        (1..4u32).prop_map(|x| F::Ge(1, x as f64 * 10_000.0 - 5_000.0)),
        (1..4u32).prop_map(|x| F::Lt(1, x as f64 * 10_000.0)),
        (0..3usize).prop_map(|v| F::Eq(1, INCOMES[v].into())),
    ];
    leaf.prop_recursive(3, 8, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|f| F::Not(Box::new(f))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| F::And(Box::new(a), Box::new(b))),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| F::Or(Box::new(a), Box::new(b))),
            (inner.clone(), inner).prop_map(|(a, b)| F::Imp(Box::new(a), Box::new(b))),
        ]
    })
}

/// Writes the logical-safety test table `t.csv` under `dir` (columns who, a, b, disease,
/// income, con; `con[i]` is row `i`'s CON cell) and the job `t.toml`: `top` first (top-level
/// keys), then the attributes (a by intervals 2 and 4, b by intervals `b_width`), the
/// logical-safety model, `[metric]` named `metric`, the `[safety]` section with `formulas`
/// and `default`, then `tail`. Returns the job's path.
#[allow(clippy::too_many_arguments)]
pub fn write_case(
    dir: &Path,
    rows: &[(u32, u32, usize, usize)],
    con: &[String],
    formulas: &[F],
    default: &[usize],
    b_width: u32,
    metric: &str,
    top: &str,
    tail: &str,
) -> PathBuf {
    let mut csv = String::from("who,a,b,disease,income,con\n");
    for (i, (a, b, d, inc)) in rows.iter().enumerate() {
        csv.push_str(&format!(
            "p{i},{a},{b},{},{},{}\n",
            DISEASES[*d], INCOMES[*inc], con[i]
        ));
    }
    std::fs::write(dir.join("t.csv"), csv).unwrap();
    let formulas: Vec<String> = formulas
        .iter()
        .enumerate()
        .map(|(i, f)| format!("f{i} = {:?}", f.text()))
        .collect();
    let default: Vec<String> = default.iter().map(|f| format!("\"f{f}\"")).collect();
    let toml = format!(
        r#"{top}
[input]
path = "t.csv"
[attributes.who]
role = "identifying"
[attributes.con]
role = "identifying"
[attributes.a]
role = "quasi-identifying"
hierarchy = {{ kind = "intervals", widths = [2, 4] }}
[attributes.b]
role = "quasi-identifying"
hierarchy = {{ kind = "intervals", widths = [{b_width}] }}
[attributes.disease]
role = "sensitive"
[attributes.income]
role = "sensitive"
[[privacy]]
model = "logical-safety"
[metric]
name = "{metric}"
[safety]
formulas = {{ {formulas} }}
default = [{default}]
column = "con"
key = "who"
{tail}"#,
        formulas = formulas.join(", "),
        default = default.join(", "),
    );
    let path = dir.join("t.toml");
    std::fs::write(&path, toml).unwrap();
    path
}
