//! The result page's charts, drawn here as SVG text (no script, nothing fetched): class
//! sizes before and after, a quasi-identifier's values in the source and the release, and
//! the lattice.

use std::fmt::Write;

use crate::explore::Node;

pub use cellsafe::job::html::escape;

/// `text` cut to at most `n` characters (with `…`).
fn cut(text: &str, n: usize) -> String {
    if text.chars().count() <= n {
        text.to_owned()
    } else {
        let mut s: String = text.chars().take(n - 1).collect();
        s.push('…');
        s
    }
}

/// The size buckets class sizes are grouped in.
const BUCKETS: [(u64, u64, &str); 9] = [
    (1, 1, "1"),
    (2, 2, "2"),
    (3, 4, "3–4"),
    (5, 9, "5–9"),
    (10, 19, "10–19"),
    (20, 49, "20–49"),
    (50, 99, "50–99"),
    (100, 999, "100–999"),
    (1000, u64::MAX, "1000+"),
];

/// Records by the size of their class, before and (when given) after: one pair of bars
/// per size bucket. `before`/`after` are (class size, classes of that size).
pub fn class_sizes(before: &[(u64, u64)], after: Option<&[(u64, u64)]>) -> String {
    let records = |h: &[(u64, u64)]| -> Vec<u64> {
        BUCKETS
            .iter()
            .map(|&(lo, hi, _)| {
                h.iter()
                    .filter(|(s, _)| (lo..=hi).contains(s))
                    .map(|(s, c)| s * c)
                    .sum()
            })
            .collect()
    };
    let b = records(before);
    let a = after.map(records);
    let max = b
        .iter()
        .chain(a.iter().flatten())
        .copied()
        .max()
        .unwrap_or(1)
        .max(1);
    let (w, h, left, bottom) = (640.0, 260.0, 60.0, 40.0);
    let slot = (w - left - 10.0) / BUCKETS.len() as f64;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {w} {h}\" \
         width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"records by class size\">"
    );
    let _ = write!(
        s,
        "<text x=\"{left}\" y=\"14\" class=\"title\">records by the size of their class \
         (grey: original, blue: released)</text>"
    );
    for (i, &(_, _, label)) in BUCKETS.iter().enumerate() {
        let x = left + i as f64 * slot;
        for (k, v) in [(0, Some(b[i])), (1, a.as_ref().map(|a| a[i]))] {
            let Some(v) = v else { continue };
            let bh = (h - bottom - 24.0) * v as f64 / max as f64;
            let _ = write!(
                s,
                "<rect x=\"{:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" class=\"{}\">\
                 <title>{label}: {v} records</title></rect>",
                x + 4.0 + k as f64 * (slot - 8.0) / 2.0,
                h - bottom - bh,
                (slot - 8.0) / 2.0,
                bh,
                if k == 0 { "before" } else { "after" }
            );
        }
        let _ = write!(
            s,
            "<text x=\"{:.1}\" y=\"{}\" class=\"axis\" text-anchor=\"middle\">{label}</text>",
            x + slot / 2.0,
            h - bottom + 16.0
        );
    }
    let _ = write!(
        s,
        "<text x=\"4\" y=\"{}\" class=\"axis\">max {max}</text></svg>",
        h - bottom - (h - bottom - 24.0) + 10.0
    );
    s
}

/// A quasi-identifier's `shown` most common values in the source and in the release
/// (each list by decreasing count), as two bar lists side by side.
pub fn distribution(
    name: &str,
    source: &[(String, u64)],
    released: &[(String, u64)],
    shown: usize,
) -> String {
    let max = source
        .iter()
        .chain(released)
        .map(|(_, n)| *n)
        .max()
        .unwrap_or(1)
        .max(1);
    let rows = shown.min(source.len().max(released.len())).max(1);
    let (w, line) = (640.0, 18.0);
    let h = 40.0 + rows as f64 * line;
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart\" viewBox=\"0 0 {w} {h}\" \
         width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"{}\">",
        escape(name)
    );
    for (k, (title, values)) in [("original", source), ("released", released)]
        .into_iter()
        .enumerate()
    {
        let x0 = k as f64 * w / 2.0;
        let _ = write!(
            s,
            "<text x=\"{x0}\" y=\"14\" class=\"title\">{} ({} distinct)</text>",
            title,
            values.len()
        );
        for (i, (v, n)) in values.iter().take(shown).enumerate() {
            let y = 24.0 + i as f64 * line;
            let bw = (w / 2.0 - 140.0) * *n as f64 / max as f64;
            let _ = write!(
                s,
                "<text x=\"{x0}\" y=\"{:.1}\" class=\"axis\">{}</text>\
                 <rect x=\"{:.1}\" y=\"{y:.1}\" width=\"{bw:.1}\" height=\"{:.1}\" class=\"{}\">\
                 <title>{}: {n}</title></rect>",
                y + 12.0,
                escape(&cut(v, 16)),
                x0 + 110.0,
                line - 4.0,
                if k == 0 { "before" } else { "after" },
                escape(v)
            );
        }
    }
    s.push_str("</svg>");
    s
}

/// The lattice's `nodes` in rows by height (the sum of their levels, the original table
/// at the bottom): acceptable nodes filled, others hollow, `best` marked; edges between
/// direct successors when there are few nodes.
pub fn lattice(nodes: &[Node], best: &[u8]) -> String {
    let height = |n: &Node| n.levels.iter().map(|&l| l as usize).sum::<usize>();
    let top = nodes.iter().map(height).max().unwrap_or(0);
    let low = nodes.iter().map(height).min().unwrap_or(0);
    let mut rows: Vec<Vec<usize>> = vec![Vec::new(); top - low + 1];
    for (i, n) in nodes.iter().enumerate() {
        rows[height(n) - low].push(i);
    }
    for r in &mut rows {
        r.sort_by(|&a, &b| nodes[a].levels.cmp(&nodes[b].levels));
    }
    let widest = rows.iter().map(Vec::len).max().unwrap_or(1);
    let gap = if nodes.len() <= 300 { 28.0 } else { 9.0 };
    let r = if nodes.len() <= 300 { 8.0 } else { 3.0 };
    let w = (widest as f64 * gap + 40.0).max(400.0);
    let line = if nodes.len() <= 300 { 50.0 } else { 24.0 };
    let h = rows.len() as f64 * line + 30.0;
    let mut at = vec![(0.0, 0.0); nodes.len()];
    for (k, row) in rows.iter().enumerate() {
        let y = h - 20.0 - k as f64 * line;
        let span = row.len() as f64 * gap;
        for (j, &i) in row.iter().enumerate() {
            at[i] = ((w - span) / 2.0 + (j as f64 + 0.5) * gap, y);
        }
    }
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"lattice\" viewBox=\"0 0 {w:.0} {h:.0}\" \
         width=\"{w:.0}\" height=\"{h:.0}\" role=\"img\" aria-label=\"lattice\">"
    );
    if nodes.len() <= 300 {
        let index: std::collections::HashMap<&[u8], usize> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (n.levels.as_slice(), i))
            .collect();
        for (i, n) in nodes.iter().enumerate() {
            for j in 0..n.levels.len() {
                let mut up = n.levels.clone();
                up[j] += 1;
                if let Some(&k) = index.get(up.as_slice()) {
                    let _ = write!(
                        s,
                        "<line x1=\"{:.1}\" y1=\"{:.1}\" x2=\"{:.1}\" y2=\"{:.1}\" class=\"edge\"/>",
                        at[i].0, at[i].1, at[k].0, at[k].1
                    );
                }
            }
        }
    }
    for (i, n) in nodes.iter().enumerate() {
        let optimum = n.levels == best;
        let class = match (optimum, n.acceptable) {
            (true, _) => "node optimum",
            (false, true) => "node acceptable",
            (false, false) => "node rejected",
        };
        let levels: Vec<String> = n.levels.iter().map(u8::to_string).collect();
        let what = match n.score {
            Some(score) => format!("acceptable, score {score:.6}, {} suppressed", n.suppressed),
            None => "not acceptable".to_owned(),
        };
        let _ = write!(
            s,
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{}\" class=\"{class}\" data-levels=\"{}\">\
             <title>[{}] {what}{}</title></circle>",
            at[i].0,
            at[i].1,
            if optimum { r * 1.8 } else { r },
            levels.join(","),
            levels.join(", "),
            if optimum { " (released)" } else { "" }
        );
    }
    s.push_str("</svg>");
    s
}

/// The nodes of a front by their first two objectives (a node's values in
/// `objectives` order): one clickable circle per node (`data-node` = its index).
pub fn front(objectives: &[String], nodes: &[crate::explore::FrontNode]) -> String {
    let (w, h, pad) = (640.0, 400.0, 60.0);
    let axis = |i: usize| -> (f64, f64) {
        let v = nodes.iter().filter_map(|n| n.values.get(i)).copied();
        let lo = v.clone().fold(f64::INFINITY, f64::min);
        let hi = v.fold(f64::NEG_INFINITY, f64::max);
        if lo.is_finite() && hi > lo {
            (lo, hi)
        } else if lo.is_finite() {
            (lo - 1.0, lo + 1.0)
        } else {
            (0.0, 1.0)
        }
    };
    let (x0, x1) = axis(0);
    let (y0, y1) = axis(1);
    let name = |i: usize| objectives.get(i).map_or("", String::as_str);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"chart front\" viewBox=\"0 0 {w} {h}\" \
         width=\"{w}\" height=\"{h}\" role=\"img\" aria-label=\"Pareto front\">\
         <line x1=\"{pad}\" y1=\"{b}\" x2=\"{r}\" y2=\"{b}\" class=\"edge\"/>\
         <line x1=\"{pad}\" y1=\"20\" x2=\"{pad}\" y2=\"{b}\" class=\"edge\"/>\
         <text x=\"{r}\" y=\"{t}\" class=\"axis\" text-anchor=\"end\">{} ({x0:.4} – {x1:.4})</text>\
         <text x=\"4\" y=\"14\" class=\"axis\">{} ({y0:.4} – {y1:.4})</text>",
        escape(name(0)),
        escape(name(1)),
        b = h - pad,
        r = w - 20.0,
        t = h - pad + 30.0,
    );
    for (i, n) in nodes.iter().enumerate() {
        let x = n.values.first().copied().unwrap_or(x0);
        let y = n.values.get(1).copied().unwrap_or(y0);
        let cx = pad + (w - pad - 40.0) * (x - x0) / (x1 - x0);
        let cy = h - pad - (h - pad - 40.0) * (y - y0) / (y1 - y0);
        let levels: Vec<String> = n.levels.iter().map(u64::to_string).collect();
        let values: Vec<String> = objectives
            .iter()
            .zip(&n.values)
            .map(|(o, v)| format!("{} {v}", escape(o)))
            .collect();
        let _ = write!(
            s,
            "<circle cx=\"{cx:.1}\" cy=\"{cy:.1}\" r=\"7\" class=\"node front-node\" \
             data-node=\"{i}\"><title>[{}] {}; k {} with {} suppressed: click to release \
             it</title></circle>",
            levels.join(", "),
            values.join(", "),
            n.k,
            n.suppressed_rows
        );
    }
    s.push_str("</svg>");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_escaped() {
        let s = distribution("a<b", &[("<script>".into(), 3)], &[("x&y".into(), 1)], 5);
        assert!(!s.contains("<script>"));
        assert!(s.contains("&lt;script&gt;") && s.contains("x&amp;y") && s.contains("a&lt;b"));
    }

    #[test]
    fn the_lattice_marks_the_optimum_and_each_status() {
        let node = |l: [u8; 2], ok: bool| Node {
            levels: l.to_vec(),
            acceptable: ok,
            score: ok.then_some(1.0),
            suppressed: 0,
        };
        let nodes = [
            node([0, 0], false),
            node([1, 0], false),
            node([0, 1], true),
            node([1, 1], true),
        ];
        let s = lattice(&nodes, &[0, 1]);
        assert_eq!(s.matches("class=\"node optimum\"").count(), 1);
        assert_eq!(s.matches("class=\"node rejected\"").count(), 2);
        assert_eq!(s.matches("class=\"node acceptable\"").count(), 1);
        assert_eq!(s.matches("<line").count(), 4);
        assert!(s.contains("data-levels=\"0,1\""));
    }
}
