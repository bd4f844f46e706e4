//! Unit tests of the formula language: atoms, precedence, errors, clausal form, bounds.

use super::*;

fn vocabulary() -> Vec<Domain> {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        Domain::new("income", 3, s(&["400K", "300K", "100K"]), None).unwrap(),
        Domain::new("health", 4, s(&["1", "0", "2"]), None).unwrap(),
        Domain::new("blood", 5, s(&["A", "B", "O", "AB"]), None).unwrap(),
    ]
}

#[test]
fn atoms_compile_to_value_sets() {
    let v = vocabulary();
    let f = parse("income >= 300K", &v).unwrap();
    assert_eq!(
        f,
        Formula::Atom(Atom {
            domain: 0,
            values: vec![true, true, false]
        })
    );
    let f = parse("health in {1, 2}", &v).unwrap();
    assert_eq!(
        f,
        Formula::Atom(Atom {
            domain: 1,
            values: vec![true, false, true]
        })
    );
    let f = parse("blood != AB", &v).unwrap();
    assert_eq!(
        f,
        Formula::Atom(Atom {
            domain: 2,
            values: vec![true, true, true, false]
        })
    );
}

#[test]
fn precedence_and_implication() {
    let v = vocabulary();
    // not > and > or > ->, -> right-associative
    let f = parse(
        "not health = 0 and income > 200K or blood = A -> health = 2",
        &v,
    )
    .unwrap();
    let row = |inc: u32, h: u32, b: u32| move |d: usize| [inc, h, b][d];
    let g = parse("((not health = 0) and income > 200K) or blood = A", &v).unwrap();
    let h = parse("health = 2", &v).unwrap();
    for inc in 0..3 {
        for he in 0..3 {
            for b in 0..4 {
                let r = row(inc, he, b);
                assert_eq!(f.holds(&r), !g.holds(&r) || h.holds(&r));
            }
        }
    }
}

#[test]
fn errors_point_at_the_character() {
    let v = vocabulary();
    let e = parse("income >= 300K and helth = 2", &v).unwrap_err();
    assert_eq!(e.position, 19);
    assert!(e.message.contains("`helth`"));
    let (_, absent) = parse_noting_absent("health in {1, 3}", &v).unwrap();
    assert_eq!(absent[0].position, 14);
    let e = parse("blood > A", &v).unwrap_err();
    assert_eq!(e.position, 6);
    assert!(e.message.contains("not ordered"));
    let e = parse("(health = 1", &v).unwrap_err();
    assert_eq!(e.position, 11);
    let e = parse("health = 1 health", &v).unwrap_err();
    assert_eq!(e.position, 11);
    assert!(e.render("health = 1 health").ends_with("           ^"));
}

/// Every clause set is checked against the formula on every record.
#[test]
fn clausal_form_is_equivalent() {
    let v = vocabulary();
    for text in [
        "income >= 300K and health in {1, 2}",
        "not (income = 100K or health = 0) -> blood in {A, B}",
        "(health = 2 or blood = O) and not (health = 2 and blood = O)",
        "health = 1 or not health = 1",
        "health = 1 and not health = 1",
    ] {
        let f = parse(text, &v).unwrap();
        let cnf = f.clauses(1000).unwrap();
        for inc in 0..3u32 {
            for he in 0..3u32 {
                for b in 0..4u32 {
                    let vals = [inc, he, b];
                    let value = |d: usize| vals[d];
                    let exact = |d: usize, x: usize| x as u32 == vals[d];
                    let size = |d: usize| v[d].values.len();
                    assert_eq!(
                        f.holds(&value),
                        cnf.known(&exact, &size),
                        "{text} at {vals:?}"
                    );
                }
            }
        }
    }
}

/// Long formulas are refused with an error at the offending token instead of
/// overflowing the stack in the parser, evaluation, clausal form or drop.
#[test]
fn nesting_and_size_are_bounded() {
    let v = vocabulary();
    let deep = format!("{}health = 1{}", "(".repeat(3000), ")".repeat(3000));
    let e = parse(&deep, &v).unwrap_err();
    assert_eq!(e.position, MAX_NESTING);
    assert!(e.message.contains("nest at most 64"), "{}", e.message);
    let nots = format!("{}health = 1", "not ".repeat(3000));
    let e = parse(&nots, &v).unwrap_err();
    assert_eq!(e.position, 4 * MAX_NESTING);
    let arrows = vec!["health = 1"; 200_000].join(" -> ");
    let e = parse(&arrows, &v).unwrap_err();
    assert!(e.message.contains("nest at most"), "{}", e.message);
    for op in [" and ", " or "] {
        let chain = vec!["health = 1"; 10_000].join(op);
        let e = parse(&chain, &v).unwrap_err();
        assert!(e.message.contains("at most 512 atoms"), "{}", e.message);
        // the 513th atom or operator: atom 257 is preceded by 256 atoms and operators
        let at = 256 * (10 + op.len());
        assert_eq!(e.position, at);
        let shown = e.render(&chain);
        assert!(shown.len() < 300, "{shown}");
        assert!(shown.ends_with(&format!("{}^", " ".repeat(41))), "{shown}");
    }
}

/// The largest formulas the bounds allow parse, evaluate, convert and drop on a small
/// stack; chains of `and` and `or` are balanced trees.
#[test]
fn largest_formulas_fit_a_small_stack() {
    std::thread::Builder::new()
        .stack_size(128 << 10)
        .spawn(|| {
            let v = vocabulary();
            let atoms = MAX_SIZE / 2; // with their operators, 511
            let nested = format!(
                "{}health = 1{}",
                "(not ".repeat(MAX_NESTING / 2),
                ")".repeat(MAX_NESTING / 2)
            );
            let texts = [
                vec!["health = 1"; atoms].join(" and "),
                vec!["health = 1"; atoms].join(" or "),
                vec!["health = 1"; MAX_NESTING + 1].join(" -> "),
                nested,
            ];
            for text in &texts {
                let f = parse(text, &v).unwrap();
                assert!(f.holds(&|_| 0));
                assert!(f.clauses(4096).is_some());
                drop(f);
            }
            let f = parse(&texts[0], &v).unwrap();
            fn depth(f: &Formula) -> usize {
                match f {
                    Formula::Atom(_) => 1,
                    Formula::Not(x) => 1 + depth(x),
                    Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) => {
                        1 + depth(a).max(depth(b))
                    }
                }
            }
            assert_eq!(depth(&f), 9);
            assert!(parse(&vec!["health = 1"; atoms + 1].join(" and "), &v).is_err());
            assert!(parse(&vec!["health = 1"; MAX_NESTING + 2].join(" -> "), &v).is_err());
        })
        .unwrap()
        .join()
        .unwrap();
}

/// A set of many values is read in linear time.
#[test]
fn long_value_sets_are_linear() {
    let s = |n: usize| (0..n).map(|i| format!("v{i}")).collect::<Vec<_>>();
    let v = vec![Domain::new("x", 0, s(100_000), None).unwrap()];
    let text = format!("x in {{{}}}", s(100_000).join(", "));
    let f = parse(&text, &v).unwrap();
    assert!(f.holds(&|_| 99_999));
}

#[test]
fn an_order_missing_a_value_is_a_typed_error() {
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let err = Domain::new("blood", 5, s(&["A", "B", "O"]), Some(&s(&["O", "A"]))).unwrap_err();
    assert_eq!(
        err,
        DomainError::MissingFromOrder {
            name: "blood".into(),
            value: "B".into()
        }
    );
    assert_eq!(
        err.to_string(),
        "value `B` of `blood` is missing from its order"
    );
    let long = "x".repeat(100);
    let err = Domain::new("blood", 5, vec![long.clone()], Some(&[])).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "value `{}` of `blood` is missing from its order",
            crate::error::excerpt(&long)
        )
    );
}
