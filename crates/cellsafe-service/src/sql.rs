//! The query language: `SELECT columns FROM table [WHERE conditions]`, parsed with
//! `sqlparser` into a gatekeeper [`Request`].
//!
//! Columns are names or `*`. Conditions are joined by `AND`; each tests one column against
//! literals: `=`, `<>`/`!=`, `<`, `<=`, `>`, `>=` (either side may hold the column),
//! `[NOT] IN (...)` and `[NOT] BETWEEN a AND b`. Literals are numbers or single-quoted
//! strings. Anything else (`OR`, joins, functions, `ORDER BY`, `LIMIT`, aggregates,
//! several statements) is refused with the reason: the gatekeeper must know exactly what
//! an answer tells the recipient about every row, and a conjunction of single-column tests
//! says it cell by cell.

use cellsafe::gatekeeper::{Condition, Request, Test};
use sqlparser::ast::{
    BinaryOperator, Expr, GroupByExpr, ObjectNamePart, SelectItem, SetExpr, Statement, TableFactor,
    UnaryOperator, Value,
};
use sqlparser::dialect::GenericDialect;
use sqlparser::parser::Parser;

/// Most bytes of query text.
pub const MAX_QUERY: usize = 16 * 1024;
/// Most conditions in one query.
const MAX_CONDITIONS: usize = 64;

/// A parsed query.
#[derive(Debug, Clone, PartialEq)]
pub struct Parsed {
    /// The table queried.
    pub table: String,
    /// Columns and conditions.
    pub request: Request,
}

/// Parses `sql`; the error says what is not supported.
pub fn parse(sql: &str) -> Result<Parsed, String> {
    if sql.len() > MAX_QUERY {
        return Err(format!("the query is longer than {MAX_QUERY} bytes"));
    }
    let statements =
        Parser::parse_sql(&GenericDialect {}, sql).map_err(|e| format!("malformed SQL: {e}"))?;
    let [statement] = statements.as_slice() else {
        return Err("exactly one SELECT statement is expected".into());
    };
    let Statement::Query(query) = statement else {
        return Err("only SELECT queries are answered".into());
    };
    if query.with.is_some() {
        return Err("WITH is not supported".into());
    }
    if query.order_by.is_some() {
        return Err("ORDER BY is not supported: rows come in a random order".into());
    }
    if query.limit_clause.is_some() || query.fetch.is_some() {
        return Err("LIMIT is not supported: an answer holds every matching row".into());
    }
    let SetExpr::Select(select) = query.body.as_ref() else {
        return Err("only a plain SELECT is supported (no UNION, VALUES or subquery)".into());
    };
    if select.distinct.is_some() {
        return Err("DISTINCT is not supported".into());
    }
    if !matches!(&select.group_by, GroupByExpr::Expressions(e, m) if e.is_empty() && m.is_empty())
        || select.having.is_some()
    {
        return Err("GROUP BY and HAVING are not supported".into());
    }
    let [from] = select.from.as_slice() else {
        return Err("the query must read exactly one table".into());
    };
    if !from.joins.is_empty() {
        return Err("joins are not supported".into());
    }
    let TableFactor::Table { name, alias, .. } = &from.relation else {
        return Err("FROM must name a table".into());
    };
    if alias.is_some() {
        return Err("table aliases are not supported".into());
    }
    let [ObjectNamePart::Identifier(table)] = name.0.as_slice() else {
        return Err("FROM must name one table, without a schema".into());
    };
    let table = table.value.clone();
    let mut columns = Vec::new();
    for item in &select.projection {
        match item {
            SelectItem::Wildcard(_) => columns.push("*".to_string()),
            SelectItem::UnnamedExpr(e) => columns.push(column(e, &table)?),
            SelectItem::ExprWithAlias { .. } => {
                return Err("column aliases are not supported".into())
            }
            SelectItem::QualifiedWildcard(..) => columns.push("*".to_string()),
        }
    }
    let mut conditions = Vec::new();
    if let Some(e) = &select.selection {
        conjuncts(e, &table, &mut conditions)?;
    }
    if conditions.len() > MAX_CONDITIONS {
        return Err(format!("at most {MAX_CONDITIONS} conditions are supported"));
    }
    // anything this reading skipped makes the canonical form differ from the query
    let canonical = format!(
        "SELECT {} FROM {}{}",
        select
            .projection
            .iter()
            .map(|p| p.to_string())
            .collect::<Vec<_>>()
            .join(", "),
        from,
        select
            .selection
            .as_ref()
            .map(|e| format!(" WHERE {e}"))
            .unwrap_or_default()
    );
    let again = Parser::parse_sql(&GenericDialect {}, &canonical)
        .map_err(|_| "the query uses a clause that is not supported".to_string())?;
    if again.as_slice() != statements.as_slice() {
        return Err(
            "the query uses a clause that is not supported; only SELECT columns FROM table \
             [WHERE conditions] is answered"
                .into(),
        );
    }
    Ok(Parsed {
        table,
        request: Request {
            columns,
            conditions,
        },
    })
}

/// A column reference (`col` or `table.col`).
fn column(e: &Expr, table: &str) -> Result<String, String> {
    match e {
        Expr::Identifier(i) => Ok(i.value.clone()),
        Expr::CompoundIdentifier(parts) => match parts.as_slice() {
            [t, c] if t.value == table => Ok(c.value.clone()),
            _ => Err(format!("`{e}` does not name a column of `{table}`")),
        },
        _ => Err(format!(
            "`{}` is not a column: only column names can be selected or tested",
            cut(&e.to_string())
        )),
    }
}

/// A literal as text (numbers as written, strings unquoted).
fn literal(e: &Expr) -> Result<String, String> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => Ok(n.clone()),
            Value::SingleQuotedString(s) => Ok(s.clone()),
            _ => Err(format!("`{v}` is not a number or a quoted string")),
        },
        Expr::UnaryOp {
            op: UnaryOperator::Minus,
            expr,
        } => match expr.as_ref() {
            Expr::Value(v) => match &v.value {
                Value::Number(n, _) => Ok(format!("-{n}")),
                _ => Err(format!("`{e}` is not a number")),
            },
            _ => Err(format!("`{}` is not a literal", cut(&e.to_string()))),
        },
        _ => Err(format!(
            "`{}` is not a literal: conditions compare a column with numbers or quoted strings",
            cut(&e.to_string())
        )),
    }
}

fn conjuncts(e: &Expr, table: &str, out: &mut Vec<Condition>) -> Result<(), String> {
    match e {
        Expr::Nested(inner) => conjuncts(inner, table, out),
        Expr::BinaryOp {
            left,
            op: BinaryOperator::And,
            right,
        } => {
            conjuncts(left, table, out)?;
            conjuncts(right, table, out)
        }
        Expr::BinaryOp {
            op: BinaryOperator::Or,
            ..
        } => Err("OR is not supported: join conditions with AND".into()),
        Expr::BinaryOp { left, op, right } => {
            let (col, lit, flipped) = match (column(left, table), column(right, table)) {
                (Ok(c), Err(_)) => (c, literal(right)?, false),
                (Err(_), Ok(c)) => (c, literal(left)?, true),
                (Ok(_), Ok(_)) => {
                    return Err(
                        "a condition compares a column with a literal, not another column".into(),
                    )
                }
                (Err(e), Err(_)) => return Err(e),
            };
            let test = match (op, flipped) {
                (BinaryOperator::Eq, _) => Test::Eq(lit),
                (BinaryOperator::NotEq, _) => Test::Ne(lit),
                (BinaryOperator::Lt, false) | (BinaryOperator::Gt, true) => Test::Lt(lit),
                (BinaryOperator::LtEq, false) | (BinaryOperator::GtEq, true) => Test::Le(lit),
                (BinaryOperator::Gt, false) | (BinaryOperator::Lt, true) => Test::Gt(lit),
                (BinaryOperator::GtEq, false) | (BinaryOperator::LtEq, true) => Test::Ge(lit),
                _ => return Err(format!("operator `{op}` is not supported")),
            };
            out.push(Condition { column: col, test });
            Ok(())
        }
        Expr::InList {
            expr,
            list,
            negated,
        } => {
            let col = column(expr, table)?;
            let values = list.iter().map(literal).collect::<Result<Vec<_>, _>>()?;
            let test = if *negated {
                Test::NotIn(values)
            } else {
                Test::In(values)
            };
            out.push(Condition { column: col, test });
            Ok(())
        }
        Expr::Between {
            expr,
            negated,
            low,
            high,
        } => {
            let col = column(expr, table)?;
            let (lo, hi) = (literal(low)?, literal(high)?);
            let test = if *negated {
                Test::NotBetween(lo, hi)
            } else {
                Test::Between(lo, hi)
            };
            out.push(Condition { column: col, test });
            Ok(())
        }
        _ => Err(format!(
            "`{}` is not a supported condition",
            cut(&e.to_string())
        )),
    }
}

fn cut(s: &str) -> String {
    if s.chars().count() > 80 {
        format!("{}…", s.chars().take(80).collect::<String>())
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conds(sql: &str) -> Vec<Condition> {
        parse(sql).unwrap().request.conditions
    }

    #[test]
    fn reads_the_subset() {
        let p =
            parse("SELECT zip, age FROM patients WHERE age >= 30 AND zip IN ('a', 'b')").unwrap();
        assert_eq!(p.table, "patients");
        assert_eq!(p.request.columns, ["zip", "age"]);
        assert_eq!(
            p.request.conditions,
            [
                Condition {
                    column: "age".into(),
                    test: Test::Ge("30".into())
                },
                Condition {
                    column: "zip".into(),
                    test: Test::In(vec!["a".into(), "b".into()])
                }
            ]
        );
        assert_eq!(
            conds("select * from t where 30 < age")[0].test,
            Test::Gt("30".into())
        );
        assert_eq!(
            conds("SELECT a FROM t WHERE (x NOT BETWEEN -1 AND 2.5)")[0].test,
            Test::NotBetween("-1".into(), "2.5".into())
        );
        assert_eq!(
            conds("SELECT t.a FROM t WHERE t.x <> 'q'")[0].test,
            Test::Ne("q".into())
        );
        assert_eq!(parse("SELECT * FROM t").unwrap().request.columns, ["*"]);
    }

    #[test]
    fn refuses_everything_else_with_a_reason() {
        for (sql, reason) in [
            ("SELEC a FROM t", "malformed SQL"),
            ("SELECT a FROM t; SELECT b FROM t", "exactly one"),
            ("DELETE FROM t", "only SELECT"),
            (
                "SELECT a FROM t WHERE x = 1 OR y = 2",
                "OR is not supported",
            ),
            ("SELECT a FROM t ORDER BY a", "ORDER BY"),
            ("SELECT a FROM t LIMIT 3", "LIMIT"),
            ("SELECT DISTINCT a FROM t", "DISTINCT"),
            ("SELECT count(*) FROM t", "not a column"),
            ("SELECT a FROM t GROUP BY a", "GROUP BY"),
            ("SELECT a FROM t, u", "exactly one table"),
            ("SELECT a FROM t JOIN u ON t.x = u.x", "joins"),
            ("SELECT a FROM (SELECT a FROM t)", "FROM must name a table"),
            ("SELECT a FROM t WHERE x = y", "not another column"),
            ("SELECT a FROM t WHERE lower(x) = 'a'", "not a column"),
            (
                "SELECT a FROM t WHERE x LIKE 'a%'",
                "not a supported condition",
            ),
            ("SELECT a AS b FROM t", "aliases"),
            ("SELECT a FROM t UNION SELECT a FROM t", "plain SELECT"),
            ("WITH s AS (SELECT a FROM t) SELECT a FROM s", "WITH"),
            ("SELECT a FROM s.t", "without a schema"),
            (
                "SELECT a FROM t WHERE x = TRUE",
                "not a number or a quoted string",
            ),
        ] {
            let e = parse(sql).unwrap_err();
            assert!(e.contains(reason), "{sql}: {e}");
        }
        assert!(parse(&"x".repeat(MAX_QUERY + 1))
            .unwrap_err()
            .contains("longer"));
    }

    /// Long or deep queries within the size limit are refused or read, never overflow the
    /// stack.
    #[test]
    fn long_and_deep_queries_are_handled() {
        let chain = format!("SELECT a FROM t WHERE {}a = 1", "a = 1 AND ".repeat(1600));
        assert!(chain.len() < MAX_QUERY);
        assert!(parse(&chain).is_err());
        let deep = format!(
            "SELECT a FROM t WHERE {}a = 1{}",
            "(".repeat(3000),
            ")".repeat(3000)
        );
        assert!(parse(&deep).is_err());
        let list = format!("SELECT a FROM t WHERE a IN ({}1)", "1, ".repeat(3000));
        assert_eq!(parse(&list).unwrap().request.conditions.len(), 1);
    }
}
