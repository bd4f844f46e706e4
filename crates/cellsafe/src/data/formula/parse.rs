//! The parser of the formula language (the grammar is in the parent module's
//! documentation): tokens to a [`Formula`] whose atoms are value sets over the vocabulary,
//! within [`MAX_NESTING`] levels and [`MAX_SIZE`] atoms and operators.

use std::fmt;

use rustc_hash::FxHashMap;

use super::lex::{describe, lex, symbol, Token};
use super::{Atom, Domain, Formula, MAX_NESTING, MAX_SIZE};
use crate::data::number;

/// A syntax or vocabulary error at a character position (0-based, in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// 0-based character position of the error in the formula.
    pub(crate) position: usize,
    /// What is wrong.
    pub(crate) message: String,
}

/// How many characters of a long formula an error shows on either side of the caret.
const CONTEXT: usize = 40;

impl ParseError {
    /// The message with the formula (cut to the characters around the position when it is
    /// long) and a caret under the offending character.
    pub(crate) fn render(&self, text: &str) -> String {
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
