//! The page `cellsafe pareto --html` writes: one self-contained HTML file (inline SVG, no
//! script, nothing fetched) with the front plotted for every pair of objectives, the
//! table of front nodes and the run's parameters.

use std::fmt::Write as _;

use serde_json::Value;

use crate::job::pareto::{NodeReport, ParetoReport};

/// Escapes text for HTML element content and attribute values.
fn esc(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// A number as a short label.
fn num(x: f64) -> String {
    if x == x.trunc() && x.abs() < 1e15 {
        format!("{x:.0}")
    } else if x.abs() >= 1e4 || x.abs() < 1e-3 {
        format!("{x:.3e}")
    } else {
        format!("{x:.4}")
    }
}

fn value(node: &NodeReport, name: &str) -> f64 {
    node.values.get(name).and_then(Value::as_f64).unwrap_or(0.0)
}

const W: f64 = 360.0;
const H: f64 = 280.0;
const M: f64 = 56.0;

/// One scatter plot of objective `x` against `y`: the exact front (when known) in grey
/// rings, the run's archive in filled dots.
fn scatter(report: &ParetoReport, x: &str, y: &str) -> String {
    let exact: Vec<&NodeReport> = report
        .exact
        .as_ref()
        .map(|e| e.front.iter().collect())
        .unwrap_or_default();
    let all: Vec<&NodeReport> = report.front.iter().chain(exact.iter().copied()).collect();
    let range = |name: &str| {
        let (lo, hi) = all
            .iter()
            .map(|n| value(n, name))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        if lo.is_finite() && hi > lo {
            (lo, hi)
        } else if lo.is_finite() {
            (lo - 1.0, lo + 1.0)
        } else {
            (0.0, 1.0)
        }
    };
    let ((x0, x1), (y0, y1)) = (range(x), range(y));
    // a positive range over more than two orders of magnitude is drawn on a log scale
    let log = |lo: f64, hi: f64| lo > 0.0 && hi / lo > 100.0;
    let (xlog, ylog) = (log(x0, x1), log(y0, y1));
    let t = |v: f64, lo: f64, hi: f64, log: bool| {
        if log {
            (v.ln() - lo.ln()) / (hi.ln() - lo.ln())
        } else {
            (v - lo) / (hi - lo)
        }
    };
    let px = |v: f64| M + t(v, x0, x1, xlog) * (W - 1.5 * M);
    let py = |v: f64| H - M - t(v, y0, y1, ylog) * (H - 1.5 * M);
    let axis = |name: &str, log: bool| {
        if log {
            format!("{name} (log scale)")
        } else {
            name.to_string()
        }
    };
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" role=\"img\" \
         aria-label=\"{} against {}\">",
        esc(y),
        esc(x)
    );
    let _ = write!(
        svg,
        "<line x1=\"{M}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#444\"/>\
         <line x1=\"{M}\" y1=\"{t}\" x2=\"{M}\" y2=\"{b}\" stroke=\"#444\"/>",
        b = H - M,
        r = W - M / 2.0,
        t = M / 2.0
    );
    for (v, anchor) in [(x0, "start"), (x1, "end")] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"{anchor}\">{}</text>",
            px(v),
            H - M + 14.0,
            esc(&num(v))
        );
    }
    for v in [y0, y1] {
        let _ = write!(
            svg,
            "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\" text-anchor=\"end\">{}</text>",
            M - 4.0,
            py(v) + 3.0,
            esc(&num(v))
        );
    }
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\
         <text x=\"12\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" \
         transform=\"rotate(-90 12 {:.1})\">{}</text>",
        (M + W - M / 2.0) / 2.0,
        H - 12.0,
        esc(&axis(x, xlog)),
        H / 2.0,
        H / 2.0,
        esc(&axis(y, ylog))
    );
    for n in &exact {
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"none\" stroke=\"#999\"/>",
            px(value(n, x)),
            py(value(n, y))
        );
    }
    for n in &report.front {
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"3\" fill=\"#1f5fa8\"/>",
            px(value(n, x)),
            py(value(n, y))
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The whole page.
pub fn html(report: &ParetoReport) -> String {
    let mut page = String::new();
    page.push_str(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>cellsafe pareto</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:72em}\
         table{border-collapse:collapse;margin:1em 0}\
         td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}\
         th{background:#f3f3f3}td.l,th.l{text-align:left}\
         .plots{display:flex;flex-wrap:wrap;gap:1em}</style></head><body>",
    );
    let _ = write!(
        page,
        "<h1>Trade-offs: {} representative minimal PBGs</h1>",
        report.front.len()
    );
    let exact = report.exact.as_ref().map_or(String::new(), |e| {
        format!(
            " Exact front: {} nodes (grey rings); convergence error {}, representation ratio {}.",
            e.front.len(),
            num(e.convergence_error),
            num(e.representation_ratio)
        )
    });
    let _ = write!(
        page,
        "<p>{} of {} rows, PBG-EA evaluated {} of {} nodes (seed {}); the archive is drawn \
         in filled dots.{}</p>",
        esc(&report.input),
        report.rows,
        report.nodes_evaluated,
        report.lattice_size,
        report.seed,
        esc(&exact)
    );
    page.push_str("<div class=\"plots\">");
    let names: Vec<&str> = report.objectives.iter().map(|o| o.name.as_str()).collect();
    for (i, x) in names.iter().enumerate() {
        for y in &names[i + 1..] {
            page.push_str(&scatter(report, x, y));
        }
    }
    if names.len() == 1 {
        page.push_str(&scatter(report, names[0], names[0]));
    }
    page.push_str("</div><h2>Front</h2><table><tr>");
    for q in &report.quasi_identifiers {
        let _ = write!(page, "<th class=\"l\">{}</th>", esc(q));
    }
    for o in &report.objectives {
        let arrow = if o.direction == "maximize" {
            "↑"
        } else {
            "↓"
        };
        let _ = write!(page, "<th>{} {arrow}</th>", esc(&o.name));
    }
    page.push_str("<th>k</th><th>suppressed rows</th></tr>");
    for n in &report.front {
        page.push_str("<tr>");
        for q in &report.quasi_identifiers {
            let level = n.levels.get(q).map(Value::to_string).unwrap_or_default();
            let _ = write!(page, "<td class=\"l\">{}</td>", esc(&level));
        }
        for o in &report.objectives {
            let _ = write!(page, "<td>{}</td>", esc(&num(value(n, &o.name))));
        }
        let _ = write!(page, "<td>{}</td><td>{}</td></tr>", n.k, n.suppressed_rows);
    }
    page.push_str("</table><h2>Parameters</h2><table>");
    let eps: Vec<String> = report.eps.iter().map(|&e| num(e)).collect();
    let rows = [
        (
            "suppression budget η (rows)",
            report.budget_rows.to_string(),
        ),
        ("discretization ε", eps.join(", ")),
        ("population", report.population.to_string()),
        ("iterations", report.iterations.to_string()),
        ("p_cross", num(report.p_cross)),
        ("p_mut", num(report.p_mut)),
        ("seed", report.seed.to_string()),
    ];
    for (k, v) in rows {
        let _ = write!(
            page,
            "<tr><th class=\"l\">{}</th><td>{}</td></tr>",
            esc(k),
            esc(&v)
        );
    }
    page.push_str("</table></body></html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::esc;

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }
}
