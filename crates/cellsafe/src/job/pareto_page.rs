//! The page `cellsafe pareto --html` writes: one self-contained HTML file (inline SVG, no
//! script, nothing fetched) with the front plotted for every pair of objectives, the
//! table of front nodes and the run's parameters.

use std::fmt::Write as _;

use serde_json::Value;

use crate::job::pareto::{shell_word, NodeReport, ParetoReport};

use crate::job::html::escape as esc;

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

/// How one objective's values are written: the same way in every cell and on every axis.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Format {
    /// Fixed point with this many decimals.
    Fixed(usize),
    /// Scientific, four significant digits.
    Scientific,
}

impl Format {
    /// The format for `values`: whole numbers without decimals; else about five
    /// significant digits for the largest, scientific only far from 1.
    fn of(values: &[f64]) -> Format {
        let max = values.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        if values.iter().all(|v| v.fract() == 0.0) && max < 1e15 {
            Format::Fixed(0)
        } else if max >= 1e15 || (max > 0.0 && max < 1e-3) {
            Format::Scientific
        } else {
            let magnitude = if max > 0.0 { max.log10().floor() } else { 0.0 };
            Format::Fixed((4.0 - magnitude).clamp(0.0, 4.0) as usize)
        }
    }

    fn show(self, x: f64) -> String {
        match self {
            Format::Fixed(d) => format!("{x:.d$}"),
            Format::Scientific => format!("{x:.3e}"),
        }
    }
}

/// `k` times `nice` times 10^`power`, computed so a decimal tick is the nearest double to
/// its decimal value (3 × 10⁻⁴ is 0.0003, not 0.00030000000000000003).
fn tick_value(k: f64, nice: f64, power: i32) -> f64 {
    if power >= 0 {
        k * nice * 10f64.powi(power)
    } else {
        k * nice / 10f64.powi(-power)
    }
}

/// An axis: its range and round ticks, linear ("nice numbers": a step of 1, 2 or 5 times a
/// power of ten, the range widened to whole steps) or, for a positive range over more than
/// two orders of magnitude, logarithmic with a tick at each power of ten.
struct Axis {
    lo: f64,
    hi: f64,
    log: bool,
    ticks: Vec<(f64, String)>,
}

impl Axis {
    fn new(lo: f64, hi: f64) -> Axis {
        let (lo, hi) = if !lo.is_finite() || !hi.is_finite() {
            (0.0, 1.0)
        } else if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, lo + 1.0)
        };
        if lo > 0.0 && hi / lo > 100.0 {
            let (a, b) = (lo.log10().floor() as i32, hi.log10().ceil() as i32);
            let ticks = (a..=b)
                .map(|e| {
                    let v = tick_value(1.0, 1.0, e);
                    let label = if (0..=5).contains(&e) {
                        format!("{v:.0}")
                    } else {
                        format!("{v:e}")
                    };
                    (v, label)
                })
                .collect::<Vec<_>>();
            return Axis {
                lo: ticks[0].0,
                hi: ticks[ticks.len() - 1].0,
                log: true,
                ticks,
            };
        }
        let raw = (hi - lo) / 4.0;
        let power = raw.log10().floor() as i32;
        let m = raw / 10f64.powi(power);
        let nice = [1.0, 2.0, 5.0, 10.0]
            .into_iter()
            .find(|&n| m <= n + 1e-9)
            .unwrap_or(10.0);
        let step = tick_value(1.0, nice, power);
        let (first, last) = ((lo / step).floor(), (hi / step - 1e-9).ceil());
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        let ticks: Vec<(f64, String)> = (first as i64..=last as i64)
            .map(|k| {
                let v = tick_value(k as f64, nice, power);
                let label = if k == 0 {
                    "0".to_string()
                } else if !(1e-4..1e5).contains(&step) {
                    format!("{v:e}")
                } else {
                    format!("{v:.decimals$}")
                };
                (v, label)
            })
            .collect();
        Axis {
            lo: ticks[0].0,
            hi: ticks[ticks.len() - 1].0,
            log: false,
            ticks,
        }
    }

    /// Where `v` falls, from 0 (at `lo`) to 1 (at `hi`).
    fn at(&self, v: f64) -> f64 {
        if self.log {
            (v.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln())
        } else {
            (v - self.lo) / (self.hi - self.lo)
        }
    }
}

const W: f64 = 480.0;
const H: f64 = 380.0;
/// Left margin.
const L: f64 = 72.0;
/// Right margin.
const R: f64 = 24.0;
/// Top margin.
const T: f64 = 24.0;
/// Bottom margin.
const B: f64 = 56.0;

/// One scatter plot of objective `x` against `y`: the exact front (when known) in grey
/// rings, the run's archive in filled dots, each numbered as its row of the table.
fn scatter(report: &ParetoReport, rows: &[&NodeReport], x: &str, y: &str) -> String {
    let exact: Vec<&NodeReport> = report
        .exact
        .as_ref()
        .map(|e| e.front.iter().collect())
        .unwrap_or_default();
    let all: Vec<&NodeReport> = rows.iter().copied().chain(exact.iter().copied()).collect();
    let axis = |name: &str| {
        let (lo, hi) = all
            .iter()
            .map(|n| value(n, name))
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), v| {
                (a.min(v), b.max(v))
            });
        Axis::new(lo, hi)
    };
    let (ax, ay) = (axis(x), axis(y));
    let px = |v: f64| L + ax.at(v) * (W - L - R);
    let py = |v: f64| H - B - ay.at(v) * (H - T - B);
    let title = |name: &str, a: &Axis| {
        if a.log {
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
    for (v, label) in &ax.ticks {
        let _ = write!(
            svg,
            "<line x1=\"{x:.1}\" y1=\"{T}\" x2=\"{x:.1}\" y2=\"{b}\" stroke=\"#eee\"/>\
             <text class=\"xt\" x=\"{x:.1}\" y=\"{ty}\" font-size=\"10\" \
             text-anchor=\"middle\">{}</text>",
            esc(label),
            x = px(*v),
            b = H - B,
            ty = H - B + 14.0
        );
    }
    for (v, label) in &ay.ticks {
        let _ = write!(
            svg,
            "<line x1=\"{L}\" y1=\"{y:.1}\" x2=\"{r}\" y2=\"{y:.1}\" stroke=\"#eee\"/>\
             <text class=\"yt\" x=\"{tx}\" y=\"{ty:.1}\" font-size=\"10\" \
             text-anchor=\"end\">{}</text>",
            esc(label),
            y = py(*v),
            r = W - R,
            tx = L - 4.0,
            ty = py(*v) + 3.0
        );
    }
    let _ = write!(
        svg,
        "<line x1=\"{L}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" stroke=\"#444\"/>\
         <line x1=\"{L}\" y1=\"{T}\" x2=\"{L}\" y2=\"{b}\" stroke=\"#444\"/>",
        b = H - B,
        r = W - R,
    );
    let _ = write!(
        svg,
        "<text x=\"{:.1}\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\">{}</text>\
         <text x=\"14\" y=\"{:.1}\" font-size=\"12\" text-anchor=\"middle\" \
         transform=\"rotate(-90 14 {:.1})\">{}</text>",
        (L + W - R) / 2.0,
        H - 16.0,
        esc(&title(x, &ax)),
        (T + H - B) / 2.0,
        (T + H - B) / 2.0,
        esc(&title(y, &ay))
    );
    for n in &exact {
        let _ = write!(
            svg,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"none\" stroke=\"#999\"/>",
            px(value(n, x)),
            py(value(n, y))
        );
    }
    for (i, n) in rows.iter().enumerate() {
        let (cx, cy) = (px(value(n, x)), py(value(n, y)));
        let _ = write!(
            svg,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"3\" fill=\"#1f5fa8\"><title>#{i}</title>\
             </circle><text class=\"pt\" x=\"{:.1}\" y=\"{:.1}\" font-size=\"9\" \
             fill=\"#0b3a6e\">{i}</text>",
            cx + 4.0,
            cy - 3.0,
            i = i + 1
        );
    }
    svg.push_str("</svg>");
    svg
}

/// The front nodes in the table's order: by the objectives in turn, each best first (the
/// largest for one maximized, the smallest for one minimized), then by levels.
fn sorted(report: &ParetoReport) -> Vec<&NodeReport> {
    let mut rows: Vec<&NodeReport> = report.front.iter().collect();
    rows.sort_by(|a, b| {
        report
            .objectives
            .iter()
            .map(|o| {
                let (va, vb) = (value(a, &o.name), value(b, &o.name));
                if o.direction == "maximize" {
                    vb.total_cmp(&va)
                } else {
                    va.total_cmp(&vb)
                }
            })
            .chain(report.quasi_identifiers.iter().map(|q| {
                let level = |n: &NodeReport| n.levels.get(q).and_then(Value::as_u64);
                level(a).cmp(&level(b))
            }))
            .find(|o| o.is_ne())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    rows
}

/// The whole page; `config` is the path of the config the run read, as the command that
/// releases a node names it.
pub fn html(report: &ParetoReport, config: &str) -> String {
    let rows = sorted(report);
    let mut page = String::new();
    page.push_str(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <title>cellsafe pareto</title><style>\
         body{font-family:sans-serif;margin:2em;max-width:80em}\
         table{border-collapse:collapse;margin:1em 0}\
         td,th{border:1px solid #ccc;padding:.2em .5em;text-align:right}\
         th{background:#f3f3f3}td.l,th.l{text-align:left}code{white-space:nowrap}\
         .plots{display:flex;flex-wrap:wrap;gap:1em}</style></head><body>",
    );
    let _ = write!(
        page,
        "<h1>Trade-offs: {} representative minimal PBGs</h1>",
        report.front.len()
    );
    let exact = report.exact.as_ref().map_or(String::new(), |e| {
        format!(
            " Exact front: {} nodes (grey rings, not numbered); convergence error {}, \
             representation ratio {}.",
            e.front.len(),
            num(e.convergence_error),
            num(e.representation_ratio)
        )
    });
    let _ = write!(
        page,
        "<p>{} of {} rows, PBG-EA evaluated {} of {} nodes (seed {}); the archive is drawn \
         in filled dots, each numbered as its row (#) of the table below.{}</p>",
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
            page.push_str(&scatter(report, &rows, x, y));
        }
    }
    if names.len() == 1 {
        page.push_str(&scatter(report, &rows, names[0], names[0]));
    }
    page.push_str("</div><h2>Front</h2>");
    let order: Vec<String> = report.objectives.iter().map(|o| esc(&o.name)).collect();
    let _ = write!(
        page,
        "<p>Rows are sorted by {}, each best first (↑ the larger the better, ↓ the smaller). \
         The last column releases the row's node.</p><table><tr><th>#</th>",
        order.join(", then by ")
    );
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
    // k is an objective or a column of its own, never both
    let k_column = !names.contains(&"k");
    if k_column {
        page.push_str("<th>k</th>");
    }
    page.push_str("<th>suppressed rows</th><th class=\"l\">release with</th></tr>");
    let formats: Vec<Format> = report
        .objectives
        .iter()
        .map(|o| Format::of(&rows.iter().map(|n| value(n, &o.name)).collect::<Vec<_>>()))
        .collect();
    let config = shell_word(config);
    for (i, n) in rows.iter().enumerate() {
        let _ = write!(page, "<tr><td>{}</td>", i + 1);
        let mut levels = Vec::new();
        for q in &report.quasi_identifiers {
            let level = n.levels.get(q).map(Value::to_string).unwrap_or_default();
            let _ = write!(page, "<td class=\"l\">{}</td>", esc(&level));
            levels.push(level);
        }
        for (o, f) in report.objectives.iter().zip(&formats) {
            let _ = write!(page, "<td>{}</td>", esc(&f.show(value(n, &o.name))));
        }
        if k_column {
            let _ = write!(page, "<td>{}</td>", n.k);
        }
        let _ = write!(
            page,
            "<td>{}</td><td class=\"l\"><code>{}</code></td></tr>",
            n.suppressed_rows,
            esc(&format!(
                "cellsafe anonymize {config} --levels {}",
                levels.join(",")
            ))
        );
    }
    page.push_str("</table><h2>Parameters</h2><table>");
    let eps: Vec<String> = report.eps.iter().map(|&e| num(e)).collect();
    let params = [
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
    for (k, v) in params {
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
    use super::{esc, shell_word, Axis, Format};

    #[test]
    fn axes_tick_on_round_values() {
        let a = Axis::new(5.8e4, 2.11e5);
        let values: Vec<f64> = a.ticks.iter().map(|t| t.0).collect();
        assert_eq!(values, [5e4, 1e5, 1.5e5, 2e5, 2.5e5]);
        assert_eq!(a.ticks[0].1, "50000");
        let a = Axis::new(1.0, 30162.0);
        assert!(a.log);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["1", "10", "100", "1000", "10000", "100000"]);
        let a = Axis::new(0.0012, 0.0047);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0.001", "0.002", "0.003", "0.004", "0.005"]);
        let a = Axis::new(0.0, 2.11e5);
        let labels: Vec<&str> = a.ticks.iter().map(|t| t.1.as_str()).collect();
        assert_eq!(labels, ["0", "1e5", "2e5", "3e5"]);
        // one value: a range around it
        assert_eq!(Axis::new(3.0, 3.0).ticks.len(), 5);
    }

    #[test]
    fn one_format_per_column() {
        assert_eq!(Format::of(&[1.0, 30162.0]), Format::Fixed(0));
        let glm = Format::of(&[211134.0, 156700.4]);
        assert_eq!(
            (glm.show(211134.0), glm.show(156700.4)),
            ("211134".into(), "156700".into())
        );
        assert_eq!(Format::of(&[0.25, 0.5]).show(0.25), "0.2500");
        assert_eq!(Format::of(&[2e-5, 1e-4]), Format::Scientific);
    }

    #[test]
    fn paths_are_one_shell_word() {
        assert_eq!(
            shell_word("examples/pbg/adult.toml"),
            "examples/pbg/adult.toml"
        );
        assert_eq!(shell_word("my job's.toml"), r"'my job'\''s.toml'");
    }

    #[test]
    fn escapes_markup() {
        assert_eq!(
            esc("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
    }
}
