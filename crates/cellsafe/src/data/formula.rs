//! Confidential formulas: sentences of Pawlak's decision logic over the released,
//! non-public attributes.
//!
//! Grammar (keywords are case-insensitive; `¬ ∧ ∨ →` may replace `not and or ->`):
//!
//! ```text
//! formula := or ( "->" formula )?            right-associative implication
//! or      := and ( "or" and )*
//! and     := unary ( "and" unary )*
//! unary   := "not" unary | "(" formula ")" | atom
//! atom    := NAME "in" "{" VALUE ( "," VALUE )* "}"
//!          | NAME ( "=" | "!=" | "<" | "<=" | ">" | ">=" ) VALUE
//! ```
//!
//! NAME and VALUE are bare words (anything but spaces and `{}(),=<>!"`) or double-quoted
//! strings. Every atom compiles to the paper's `(j, α)`: a column and the set α of its
//! dictionary codes that satisfy it, so a comparison `income >= 300K` is just the set of
//! incomes at least 300K. Parse errors carry the character position.
//!
//! A formula nests at most [`MAX_NESTING`] levels and has at most [`MAX_SIZE`] atoms and
//! operators, so parsing, evaluating, converting to clausal form and dropping a formula
//! never recurse deeply. Chains of `and` and of `or` are built as balanced trees.

use std::fmt;

use rustc_hash::FxHashMap;

use crate::data::number;

/// The most levels of nesting in a formula: each parenthesis, `not` and `->` opens one.
pub const MAX_NESTING: usize = 64;
/// The most atoms and operators (`not`, `and`, `or`, `->`) in a formula.
pub const MAX_SIZE: usize = 512;

/// The domain of one attribute formulas may mention.
#[derive(Debug, Clone)]
pub struct Domain {
    pub name: String,
    /// Table column.
    pub column: usize,
    /// Values by dictionary code.
    pub values: Vec<String>,
    /// A number per value when the attribute is ordered (comparisons need it).
    pub rank: Option<Vec<f64>>,
    /// Whether comparison literals are read as numbers (true) or must be values (false,
    /// an explicit order).
    pub numeric: bool,
}

impl Domain {
    /// A domain whose values all read as numbers (`300K` is 300,000) is ordered numerically;
    /// otherwise it is unordered unless `order` lists every value.
    pub fn new(
        name: &str,
        column: usize,
        values: Vec<String>,
        order: Option<&[String]>,
    ) -> Result<Domain, String> {
        if let Some(order) = order {
            let mut rank = vec![f64::NAN; values.len()];
            for (i, v) in order.iter().enumerate() {
                if let Some(code) = values.iter().position(|x| x == v) {
                    rank[code] = i as f64;
                }
            }
            if let Some(code) = rank.iter().position(|r| r.is_nan()) {
                return Err(format!(
                    "value `{}` of `{name}` is missing from its order",
                    crate::error::excerpt(&values[code])
                ));
            }
            return Ok(Domain {
                name: name.into(),
                column,
                values,
                rank: Some(rank),
                numeric: false,
            });
        }
        let rank: Option<Vec<f64>> = values.iter().map(|v| number::parse(v)).collect();
        Ok(Domain {
            name: name.into(),
            column,
            numeric: rank.is_some(),
            rank,
            values,
        })
    }
}

/// `(j, α)`: the value of domain `domain` lies in `values` (indexed by dictionary code).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Atom {
    /// Index into the vocabulary.
    pub domain: usize,
    pub values: Vec<bool>,
}

/// A parsed formula.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Formula {
    Atom(Atom),
    Not(Box<Formula>),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    Implies(Box<Formula>, Box<Formula>),
}

/// A syntax or vocabulary error at a character position (0-based, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub position: usize,
    pub message: String,
}

/// How many characters of a long formula an error shows on either side of the caret.
const CONTEXT: usize = 40;

impl ParseError {
    /// The message with the formula (cut to the characters around the position when it is
    /// long) and a caret under the offending character.
    pub fn render(&self, text: &str) -> String {
        let chars: Vec<char> = text.chars().collect();
        let from = self.position.saturating_sub(CONTEXT);
        let to = (self.position + CONTEXT + 1).min(chars.len());
        let mut shown: String = chars[from.min(to)..to].iter().collect();
        let mut caret = self.position - from;
        if from > 0 {
            shown.insert(0, '…');
            caret += 1;
        }
        if to < chars.len() {
            shown.push('…');
        }
        format!(
            "at character {}: {}\n    {}\n    {}^",
            self.position + 1,
            self.message,
            shown,
            " ".repeat(caret)
        )
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.position + 1, self.message)
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Quoted(String),
    Open,
    Close,
    BraceOpen,
    BraceClose,
    Comma,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Arrow,
    Not,
    And,
    Or,
    In,
    End,
}

fn describe(t: &Token) -> String {
    match t {
        Token::Word(w) => format!("`{w}`"),
        Token::Quoted(w) => format!("\"{w}\""),
        Token::End => "the end of the formula".into(),
        other => format!("`{}`", symbol(other)),
    }
}

fn symbol(t: &Token) -> &'static str {
    match t {
        Token::Open => "(",
        Token::Close => ")",
        Token::BraceOpen => "{",
        Token::BraceClose => "}",
        Token::Comma => ",",
        Token::Eq => "=",
        Token::Ne => "!=",
        Token::Lt => "<",
        Token::Le => "<=",
        Token::Gt => ">",
        Token::Ge => ">=",
        Token::Arrow => "->",
        Token::Not => "not",
        Token::And => "and",
        Token::Or => "or",
        Token::In => "in",
        _ => "",
    }
}

fn is_word_char(c: char) -> bool {
    !c.is_whitespace() && !"{}(),=<>!\"¬∧∨→".contains(c)
}

fn lex(text: &str) -> Result<Vec<(Token, usize)>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |position: usize, message: String| ParseError { position, message };
    while i < chars.len() {
        let c = chars[i];
        let start = i;
        let next = chars.get(i + 1).copied();
        let (token, len) = match c {
            c if c.is_whitespace() => {
                i += 1;
                continue;
            }
            '(' => (Token::Open, 1),
            ')' => (Token::Close, 1),
            '{' => (Token::BraceOpen, 1),
            '}' => (Token::BraceClose, 1),
            ',' => (Token::Comma, 1),
            '=' => (Token::Eq, 1),
            '¬' => (Token::Not, 1),
            '∧' => (Token::And, 1),
            '∨' => (Token::Or, 1),
            '→' => (Token::Arrow, 1),
            '!' if next == Some('=') => (Token::Ne, 2),
            '<' if next == Some('=') => (Token::Le, 2),
            '<' => (Token::Lt, 1),
            '>' if next == Some('=') => (Token::Ge, 2),
            '>' => (Token::Gt, 1),
            '-' if next == Some('>') => (Token::Arrow, 2),
            '"' => {
                let mut j = i + 1;
                let mut s = String::new();
                while j < chars.len() && chars[j] != '"' {
                    s.push(chars[j]);
                    j += 1;
                }
                if j == chars.len() {
                    return Err(err(start, "unterminated quoted string".into()));
                }
                (Token::Quoted(s), j + 1 - i)
            }
            c if is_word_char(c) => {
                let mut j = i;
                let mut s = String::new();
                while j < chars.len()
                    && is_word_char(chars[j])
                    && !(chars[j] == '-' && chars.get(j + 1) == Some(&'>'))
                {
                    s.push(chars[j]);
                    j += 1;
                }
                let token = match s.to_ascii_lowercase().as_str() {
                    "not" => Token::Not,
                    "and" => Token::And,
                    "or" => Token::Or,
                    "in" => Token::In,
                    _ => Token::Word(s),
                };
                (token, j - i)
            }
            other => return Err(err(start, format!("unexpected character `{other}`"))),
        };
        out.push((token, start));
        i += len;
    }
    out.push((Token::End, chars.len()));
    Ok(out)
}

struct Parser<'a> {
    tokens: Vec<(Token, usize)>,
    at: usize,
    vocabulary: &'a [Domain],
    /// Per domain, the code of each value (built when the domain is first named).
    codes: Vec<Option<FxHashMap<&'a str, usize>>>,
    /// Values named that no record has.
    absent: Vec<ParseError>,
    /// Levels of nesting open at the current token.
    depth: usize,
    /// Atoms and operators read so far.
    size: usize,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> &Token {
        &self.tokens[self.at].0
    }
    fn position(&self) -> usize {
        self.tokens[self.at].1
    }
    fn bump(&mut self) -> (Token, usize) {
        let t = self.tokens[self.at].clone();
        if self.at + 1 < self.tokens.len() {
            self.at += 1;
        }
        t
    }
    fn fail<T>(&self, message: String) -> Result<T, ParseError> {
        Err(ParseError {
            position: self.position(),
            message,
        })
    }
    fn expect(&mut self, want: Token) -> Result<(), ParseError> {
        if *self.peek() == want {
            self.bump();
            Ok(())
        } else {
            self.fail(format!(
                "expected `{}`, found {}",
                symbol(&want),
                describe(self.peek())
            ))
        }
    }

    /// Counts the atom or operator at the current token against [`MAX_SIZE`].
    fn count(&mut self) -> Result<(), ParseError> {
        self.size += 1;
        if self.size > MAX_SIZE {
            return self.fail(format!(
                "a formula may have at most {MAX_SIZE} atoms and operators \
                 (`not`, `and`, `or`, `->`); split it into several formulas"
            ));
        }
        Ok(())
    }
    /// Opens a level of nesting at the current token, within [`MAX_NESTING`].
    fn enter(&mut self) -> Result<(), ParseError> {
        if self.depth >= MAX_NESTING {
            return self.fail(format!(
                "a formula may nest at most {MAX_NESTING} levels (each `(`, `not` and `->` \
                 opens one)"
            ));
        }
        self.depth += 1;
        Ok(())
    }

    fn formula(&mut self) -> Result<Formula, ParseError> {
        let left = self.or()?;
        if *self.peek() == Token::Arrow {
            self.count()?;
            self.enter()?;
            self.bump();
            let right = self.formula()?;
            self.depth -= 1;
            return Ok(Formula::Implies(Box::new(left), Box::new(right)));
        }
        Ok(left)
    }
    fn or(&mut self) -> Result<Formula, ParseError> {
        let mut terms = vec![self.and()?];
        while *self.peek() == Token::Or {
            self.count()?;
            self.bump();
            terms.push(self.and()?);
        }
        Ok(balanced(terms, Formula::Or))
    }
    fn and(&mut self) -> Result<Formula, ParseError> {
        let mut terms = vec![self.unary()?];
        while *self.peek() == Token::And {
            self.count()?;
            self.bump();
            terms.push(self.unary()?);
        }
        Ok(balanced(terms, Formula::And))
    }
    fn unary(&mut self) -> Result<Formula, ParseError> {
        match self.peek() {
            Token::Not => {
                self.count()?;
                self.enter()?;
                self.bump();
                let f = self.unary()?;
                self.depth -= 1;
                Ok(Formula::Not(Box::new(f)))
            }
            Token::Open => {
                self.enter()?;
                self.bump();
                let f = self.formula()?;
                self.expect(Token::Close)?;
                self.depth -= 1;
                Ok(f)
            }
            _ => {
                self.count()?;
                self.atom()
            }
        }
    }

    fn word(&mut self, what: &str) -> Result<(String, usize), ParseError> {
        match self.peek().clone() {
            Token::Word(w) | Token::Quoted(w) => {
                let p = self.position();
                self.bump();
                Ok((w, p))
            }
            other => self.fail(format!("expected {what}, found {}", describe(&other))),
        }
    }

    /// The code of `value`, or `None` (noted in `absent`) when no record has it: the atom
    /// then simply matches no record with that value.
    fn value_code(&mut self, domain: usize, value: &str, at: usize) -> Option<usize> {
        let d: &'a Domain = &self.vocabulary[domain];
        let codes = self.codes[domain].get_or_insert_with(|| {
            let mut codes = FxHashMap::default();
            for (c, v) in d.values.iter().enumerate() {
                codes.entry(v.as_str()).or_insert(c);
            }
            codes
        });
        let code = codes.get(value).copied();
        if code.is_none() {
            self.absent.push(ParseError {
                position: at,
                message: format!(
                    "`{}` never occurs in `{}`",
                    crate::error::excerpt(value),
                    d.name
                ),
            });
        }
        code
    }

    fn atom(&mut self) -> Result<Formula, ParseError> {
        let (name, name_at) = self.word("an attribute name")?;
        let Some(domain) = self.vocabulary.iter().position(|d| d.name == name) else {
            let known: Vec<&str> = self.vocabulary.iter().map(|d| d.name.as_str()).collect();
            return Err(ParseError {
                position: name_at,
                message: format!(
                    "`{name}` is not an attribute formulas may mention (confidential or \
                     insensitive columns: {})",
                    known.join(", ")
                ),
            });
        };
        let d = &self.vocabulary[domain];
        let mut values = vec![false; d.values.len()];
        let (op, op_at) = self.bump();
        match op {
            Token::In => {
                self.expect(Token::BraceOpen)?;
                loop {
                    let (v, at) = self.word("a value")?;
                    if let Some(code) = self.value_code(domain, &v, at) {
                        values[code] = true;
                    }
                    match self.peek() {
                        Token::Comma => {
                            self.bump();
                        }
                        Token::BraceClose => {
                            self.bump();
                            break;
                        }
                        other => {
                            return self
                                .fail(format!("expected `,` or `}}`, found {}", describe(other)))
                        }
                    }
                }
            }
            Token::Eq | Token::Ne => {
                let (v, at) = self.word("a value")?;
                let code = self.value_code(domain, &v, at);
                for (c, x) in values.iter_mut().enumerate() {
                    *x = (Some(c) == code) == (op == Token::Eq);
                }
            }
            Token::Lt | Token::Le | Token::Gt | Token::Ge => {
                let Some(rank) = &d.rank else {
                    return Err(ParseError {
                        position: op_at,
                        message: format!(
                            "`{}` is not ordered: its values are not all numbers; give \
                             `safety.order.{}` to compare",
                            d.name, d.name
                        ),
                    });
                };
                let (v, at) = self.word("a value")?;
                let bound = if d.numeric {
                    number::parse(&v).ok_or_else(|| ParseError {
                        position: at,
                        message: format!("`{}` is not a number", crate::error::excerpt(&v)),
                    })?
                } else {
                    let code = d.values.iter().position(|x| *x == v);
                    rank[code.ok_or_else(|| ParseError {
                        position: at,
                        message: format!(
                            "`{}` is not in the order of `{}`",
                            crate::error::excerpt(&v),
                            d.name
                        ),
                    })?]
                };
                for (c, x) in values.iter_mut().enumerate() {
                    let r = rank[c];
                    *x = match op {
                        Token::Lt => r < bound,
                        Token::Le => r <= bound,
                        Token::Gt => r > bound,
                        _ => r >= bound,
                    };
                }
            }
            other => {
                return Err(ParseError {
                    position: op_at,
                    message: format!(
                        "expected `in`, `=`, `!=`, `<`, `<=`, `>` or `>=` after `{name}`, \
                         found {}",
                        describe(&other)
                    ),
                })
            }
        }
        Ok(Formula::Atom(Atom { domain, values }))
    }
}

/// Parses `text` against `vocabulary`.
pub fn parse(text: &str, vocabulary: &[Domain]) -> Result<Formula, ParseError> {
    parse_noting_absent(text, vocabulary).map(|(f, _)| f)
}

/// Parses `text`, also returning the values it names that no record has (likely typos,
/// yet legitimate: a person may fear a value this extract happens not to contain).
pub fn parse_noting_absent(
    text: &str,
    vocabulary: &[Domain],
) -> Result<(Formula, Vec<ParseError>), ParseError> {
    let mut p = Parser {
        tokens: lex(text)?,
        at: 0,
        vocabulary,
        codes: vec![None; vocabulary.len()],
        absent: Vec::new(),
        depth: 0,
        size: 0,
    };
    let f = p.formula()?;
    if *p.peek() != Token::End {
        return p.fail(format!(
            "expected `and`, `or`, `->` or the end, found {}",
            describe(p.peek())
        ));
    }
    Ok((f, p.absent))
}

/// `terms` joined by the associative `op` as a balanced tree (depth log2 of their number).
fn balanced(mut terms: Vec<Formula>, op: fn(Box<Formula>, Box<Formula>) -> Formula) -> Formula {
    if terms.len() == 1 {
        return terms.pop().expect("one term");
    }
    let right = terms.split_off(terms.len() / 2);
    op(Box::new(balanced(terms, op)), Box::new(balanced(right, op)))
}

impl Formula {
    /// Two-valued truth for a record whose value of domain `d` has code `value(d)`.
    pub fn holds(&self, value: &impl Fn(usize) -> u32) -> bool {
        match self {
            Formula::Atom(a) => a.values[value(a.domain) as usize],
            Formula::Not(f) => !f.holds(value),
            Formula::And(a, b) => a.holds(value) && b.holds(value),
            Formula::Or(a, b) => a.holds(value) || b.holds(value),
            Formula::Implies(a, b) => !a.holds(value) || b.holds(value),
        }
    }

    /// The domains the formula mentions, sorted.
    pub fn domains(&self) -> Vec<usize> {
        fn walk(f: &Formula, out: &mut Vec<usize>) {
            match f {
                Formula::Atom(a) => out.push(a.domain),
                Formula::Not(x) => walk(x, out),
                Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) => {
                    walk(a, out);
                    walk(b, out)
                }
            }
        }
        let mut out = Vec::new();
        walk(self, &mut out);
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The clausal normal form of section 4.2 of paper 002: a conjunction of clauses whose
    /// literals are positive atoms, at most one per domain. Negations become complements,
    /// disjuncts on one domain are united, clauses that always hold are dropped. `None`
    /// when the form would exceed `limit` clauses.
    pub fn clauses(&self, limit: usize) -> Option<Cnf> {
        let mut cnf = cnf(self, true, limit)?;
        cnf.retain(|c| !c.is_tautology());
        cnf.sort_by_key(|c| c.atoms.len());
        Some(Cnf(cnf))
    }
}

/// A disjunction of positive atoms on distinct domains.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Clause {
    pub atoms: Vec<Atom>,
}

impl Clause {
    fn is_tautology(&self) -> bool {
        self.atoms.iter().any(|a| a.values.iter().all(|&x| x))
    }
    fn or(&self, other: &Clause) -> Clause {
        let mut atoms = self.atoms.clone();
        for b in &other.atoms {
            match atoms.iter_mut().find(|a| a.domain == b.domain) {
                Some(a) => {
                    for (x, &y) in a.values.iter_mut().zip(&b.values) {
                        *x |= y;
                    }
                }
                None => atoms.push(b.clone()),
            }
        }
        atoms.sort_by_key(|a| a.domain);
        Clause { atoms }
    }
}

/// A formula in clausal normal form. The empty conjunction is true; an empty clause is
/// false.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cnf(pub Vec<Clause>);

impl Cnf {
    /// Whether the formula holds in every reasonable completion of a record whose value of
    /// domain `d` is only known to lie in the set `cell(d)` (three-valued, paper 002
    /// definition 7): every clause needs an atom that contains its domain's whole cell.
    pub fn known(
        &self,
        cell: &impl Fn(usize, usize) -> bool,
        size: &impl Fn(usize) -> usize,
    ) -> bool {
        self.0.iter().all(|clause| {
            clause.atoms.iter().any(|a| {
                let n = size(a.domain);
                (0..n).all(|v| !cell(a.domain, v) || a.values[v])
            })
        })
    }
}

/// Clauses of `f` (when `positive`) or of `¬f`.
fn cnf(f: &Formula, positive: bool, limit: usize) -> Option<Vec<Clause>> {
    let product = |a: Vec<Clause>, b: Vec<Clause>| -> Option<Vec<Clause>> {
        if a.len().saturating_mul(b.len()) > limit {
            return None;
        }
        let mut out = Vec::with_capacity(a.len() * b.len());
        for x in &a {
            for y in &b {
                out.push(x.or(y));
            }
        }
        Some(out)
    };
    let concat = |mut a: Vec<Clause>, b: Vec<Clause>| -> Option<Vec<Clause>> {
        a.extend(b);
        (a.len() <= limit).then_some(a)
    };
    match (f, positive) {
        (Formula::Atom(a), true) => Some(vec![Clause {
            atoms: vec![a.clone()],
        }]),
        (Formula::Atom(a), false) => Some(vec![Clause {
            atoms: vec![Atom {
                domain: a.domain,
                values: a.values.iter().map(|&x| !x).collect(),
            }],
        }]),
        (Formula::Not(x), p) => cnf(x, !p, limit),
        (Formula::And(a, b), true) => concat(cnf(a, true, limit)?, cnf(b, true, limit)?),
        (Formula::Or(a, b), false) => concat(cnf(a, false, limit)?, cnf(b, false, limit)?),
        (Formula::Or(a, b), true) => product(cnf(a, true, limit)?, cnf(b, true, limit)?),
        (Formula::And(a, b), false) => product(cnf(a, false, limit)?, cnf(b, false, limit)?),
        // a -> b is ¬a ∨ b; ¬(a -> b) is a ∧ ¬b
        (Formula::Implies(a, b), true) => product(cnf(a, false, limit)?, cnf(b, true, limit)?),
        (Formula::Implies(a, b), false) => concat(cnf(a, true, limit)?, cnf(b, false, limit)?),
    }
    .map(|clauses| {
        // a literal no value satisfies is false: drop it from its clause
        clauses
            .into_iter()
            .map(|c| Clause {
                atoms: c
                    .atoms
                    .into_iter()
                    .filter(|a| a.values.iter().any(|&x| x))
                    .collect(),
            })
            .collect()
    })
}

#[cfg(test)]
mod tests {
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
}
