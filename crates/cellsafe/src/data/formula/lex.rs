//! The lexer of the formula language: characters to tokens with their positions.

use super::ParseError;

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token {
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

pub(super) fn describe(t: &Token) -> String {
    match t {
        Token::Word(w) => format!("`{w}`"),
        Token::Quoted(w) => format!("\"{w}\""),
        Token::End => "the end of the formula".into(),
        other => format!("`{}`", symbol(other)),
    }
}

pub(super) fn symbol(t: &Token) -> &'static str {
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

pub(super) fn lex(text: &str) -> Result<Vec<(Token, usize)>, ParseError> {
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
