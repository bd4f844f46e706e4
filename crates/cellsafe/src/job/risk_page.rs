//! The page `cellsafe risk --html` writes: one self-contained HTML file (inline SVG, no
//! script, nothing fetched) with the headline risks, the class sizes and the records'
//! risks, for the table as it is and, beside it, under the transformation asked for.

use std::fmt::Write as _;

use crate::job::risk::RiskReport;

use crate::job::html::escape as esc;

fn pct(x: f64) -> String {
    if x == 0.0 {
        "0 %".into()
    } else if x < 0.0001 {
        format!("{:.2e} %", 100.0 * x)
    } else {
        format!("{:.2} %", 100.0 * x)
    }
}

/// Class-size bins: (label, smallest size, largest size).
const SIZE_BINS: [(&str, u64, u64); 8] = [
    ("1", 1, 1),
    ("2", 2, 2),
    ("3–4", 3, 4),
    ("5–9", 5, 9),
    ("10–19", 10, 19),
    ("20–49", 20, 49),
    ("50–99", 50, 99),
    ("100+", 100, u64::MAX),
];

/// The records in classes: the rows of the released file (all of them when suppressed rows
/// are written as `*`, the others when they are left out).
fn released(r: &RiskReport) -> u64 {
    r.histogram.iter().map(|h| h.size * h.classes).sum()
}

/// Share of the released file's records in classes of each size bin.
fn size_shares(r: &RiskReport) -> Vec<f64> {
    let total = released(r);
    SIZE_BINS
        .iter()
        .map(|&(_, lo, hi)| {
            let records: u64 = r
                .histogram
                .iter()
                .filter(|h| (lo..=hi).contains(&h.size))
                .map(|h| h.size * h.classes)
                .sum();
            if total == 0 {
                0.0
            } else {
                records as f64 / total as f64
            }
        })
        .collect()
}

/// Risk bins (prosecutor risk 1/f): (label, exclusive lower bound, upper bound).
const RISK_BINS: [(&str, f64, f64); 8] = [
    ("≤ 1 %", -1.0, 0.01),
    ("1–2 %", 0.01, 0.02),
    ("2–5 %", 0.02, 0.05),
    ("5–10 %", 0.05, 0.1),
    ("10–20 %", 0.1, 0.2),
    ("20–33 %", 0.2, 1.0 / 3.0),
    ("33–50 %", 1.0 / 3.0, 0.5),
    ("> 50 %", 0.5, 1.0),
];

/// Share of the released file's records at each risk bin (`record_risks` are shares of
/// the records in classes, which are those records).
fn risk_shares(r: &RiskReport) -> Vec<f64> {
    RISK_BINS
        .iter()
        .map(|&(_, lo, hi)| {
            r.record_risks
                .iter()
                .filter(|x| x.risk > lo && x.risk <= hi)
                .map(|x| x.records)
                .sum()
        })
        .collect()
}

/// Round tick values from 0 to at least `max` ("nice numbers"): a step of 1, 2 or 5 times
/// a power of ten, about `target` steps, the last tick the first at or above `max`.
pub(crate) fn nice_ticks(max: f64, target: usize) -> Vec<f64> {
    let max = if max.is_finite() && max > 0.0 {
        max
    } else {
        1.0
    };
    let step = nice_step(max / target.max(1) as f64);
    let n = (max / step - 1e-9).ceil().max(1.0) as usize;
    (0..=n).map(|i| i as f64 * step).collect()
}

/// The smallest of 1, 2 or 5 times a power of ten at least `raw` (> 0).
pub(crate) fn nice_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let nice = if m <= 1.0 + 1e-9 {
        1.0
    } else if m <= 2.0 + 1e-9 {
        2.0
    } else if m <= 5.0 + 1e-9 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// `value` with as many decimals as `step` needs to show each tick exactly.
pub(crate) fn tick_label(value: f64, step: f64) -> String {
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    format!("{value:.decimals$}")
}

/// A bar chart of shares, one group per label, one bar per series.
fn bars(title: &str, labels: &[&str], series: &[(&str, &str, Vec<f64>)]) -> String {
    let (w, h, left, bottom, top) = (560.0, 260.0, 48.0, 40.0, 28.0);
    let plot_h = h - bottom - top;
    let max = series
        .iter()
        .flat_map(|s| s.2.iter().copied())
        .fold(0.0f64, f64::max);
    // ticks on round percentages; the axis ends at the last
    let ticks = nice_ticks(100.0 * max, 4);
    let step = ticks[1] - ticks[0];
    let max = ticks[ticks.len() - 1] / 100.0;
    let group = (w - left - 10.0) / labels.len() as f64;
    let bar = (group - 8.0) / series.len() as f64;
    let mut svg = String::new();
    let _ = write!(
        svg,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" role="img" aria-label="{t}"><text x="{left}" y="16" font-size="13" font-weight="bold">{t}</text>"#,
        t = esc(title)
    );
    let _ = write!(
        svg,
        r##"<line x1="{left}" y1="{y}" x2="{x2}" y2="{y}" stroke="#444"/>"##,
        y = h - bottom,
        x2 = w - 10.0
    );
    for &t in &ticks {
        let y = h - bottom - t / 100.0 / max * plot_h;
        let _ = write!(
            svg,
            r##"<text x="{x}" y="{ty:.1}" font-size="10" text-anchor="end">{p} %</text><line x1="{left}" y1="{y:.1}" x2="{x2}" y2="{y:.1}" stroke="#ddd"/>"##,
            x = left - 4.0,
            ty = y + 3.0,
            p = tick_label(t, step),
            x2 = w - 10.0
        );
    }
    for (i, label) in labels.iter().enumerate() {
        let x0 = left + i as f64 * group + 4.0;
        for (s, (name, colour, values)) in series.iter().enumerate() {
            let v = values[i];
            let bh = v / max * plot_h;
            let _ = write!(
                svg,
                r#"<rect x="{x:.1}" y="{y:.1}" width="{bw:.1}" height="{bh:.1}" fill="{colour}"><title>{n}: {l}: {p}</title></rect>"#,
                x = x0 + s as f64 * bar,
                y = h - bottom - bh,
                bw = bar - 1.0,
                n = esc(name),
                l = esc(label),
                p = pct(v)
            );
        }
        let _ = write!(
            svg,
            r#"<text x="{x:.1}" y="{y}" font-size="10" text-anchor="middle">{l}</text>"#,
            x = x0 + group / 2.0 - 4.0,
            y = h - bottom + 14.0,
            l = esc(label)
        );
    }
    let mut x = left;
    for (name, colour, _) in series {
        let _ = write!(
            svg,
            r#"<rect x="{x}" y="{y}" width="10" height="10" fill="{colour}"/><text x="{tx}" y="{ty}" font-size="11">{n}</text>"#,
            y = h - 14.0,
            tx = x + 14.0,
            ty = h - 5.0,
            n = esc(name)
        );
        x += 160.0;
    }
    svg.push_str("</svg>");
    svg
}

/// What the page says of `r`'s suppressed records: the truth for the data it draws.
fn suppressed_sentence(r: &RiskReport) -> String {
    let released = released(r);
    if r.suppressed == 0 {
        return format!(
            "No record is suppressed; the charts give shares of all {released} records."
        );
    }
    match r.suppressed_class_size {
        Some(size) => {
            let joined = if size > r.suppressed {
                format!(
                    ", joined by the {} records whose every quasi-identifier reads * anyway",
                    size - r.suppressed
                )
            } else {
                String::new()
            };
            format!(
                "The {n} suppressed records are written with * for every quasi-identifier, so \
                 a recipient of the released file sees them as one class: they form one class \
                 of {size} records{joined}, counted in the histogram, the charts and the risks \
                 (a risk of 1 / {size}). The charts give shares of the {released} records in \
                 the released file.",
                n = r.suppressed
            )
        }
        None => format!(
            "The {} suppressed records are left out of the released file: they are in no \
             class and no bar. The charts give shares of the {released} records in the \
             released file.",
            r.suppressed
        ),
    }
}

/// The page for `before` (the table as it is) and, when given, `after` (a transformation).
pub fn html(before: &RiskReport, after: Option<&RiskReport>) -> String {
    let reports: Vec<(&str, &RiskReport)> = std::iter::once(("as it is", before))
        .chain(after.map(|a| ("transformed", a)))
        .collect();
    let mut page = String::new();
    page.push_str(
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>cellsafe: re-identification risk</title>\
         <style>body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em}\
         table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px 10px;text-align:right}\
         th:first-child,td:first-child{text-align:left}.charts{display:flex;flex-wrap:wrap;gap:1em}</style>\
         </head><body><h1>Re-identification risk</h1>",
    );
    let _ = write!(
        page,
        "<p>Quasi-identifiers: {}. A prosecutor knows their target is in the table; a journalist \
         links against the population; a marketer links every record. A record's risk is 1 / \
         (the size of its class); records at risk are those above {}. The charts give shares \
         of the records in the released file.</p>",
        esc(&before.quasi_identifiers.join(", ")),
        pct(before.threshold)
    );
    for (name, r) in &reports {
        let _ = write!(page, "<p>{}: {}</p>", name, suppressed_sentence(r));
    }
    page.push_str("<h2>Headline</h2><table><tr><th></th>");
    for (name, r) in &reports {
        let levels: Vec<String> = r.levels.iter().map(|l| l.to_string()).collect();
        let _ = write!(page, "<th>{} (levels {})</th>", name, levels.join(","));
    }
    page.push_str("</tr>");
    let mut row = |label: &str, f: &dyn Fn(&RiskReport) -> String| {
        let _ = write!(page, "<tr><td>{}</td>", esc(label));
        for (_, r) in &reports {
            let _ = write!(page, "<td>{}</td>", f(r));
        }
        page.push_str("</tr>");
    };
    row("records", &|r| r.records.to_string());
    if reports.iter().any(|(_, r)| r.population_records.is_some()) {
        // a research subset: the journalist links against this population
        row("population records", &|r| {
            r.population_records
                .map_or(String::new(), |n| n.to_string())
        });
    }
    row("suppressed records", &|r| r.suppressed.to_string());
    row("classes", &|r| r.classes.to_string());
    row("prosecutor: highest risk", &|r| pct(r.prosecutor.highest));
    row("prosecutor: average risk", &|r| pct(r.prosecutor.average));
    row("prosecutor: records at risk", &|r| {
        pct(r.prosecutor.records_at_risk)
    });
    row("journalist: highest risk", &|r| pct(r.journalist.highest));
    row("journalist: average risk", &|r| pct(r.journalist.average));
    row("journalist: records at risk", &|r| {
        pct(r.journalist.records_at_risk)
    });
    row("marketer: records re-identified", &|r| {
        pct(r.marketer.average)
    });
    row("sample uniques", &|r| pct(r.sample_uniques));
    // ARX's 0 for an estimate means "no fit" when there are sample uniques
    let estimate = |r: &RiskReport, x: f64| {
        if x == 0.0 && r.sample_uniques > 0.0 {
            "no fit".to_string()
        } else {
            pct(x)
        }
    };
    if before.population_uniques.is_some() {
        row("population size", &|r| {
            r.population_uniques
                .map_or("–".into(), |p| p.population.to_string())
        });
        row("population uniques: Zayatz", &|r| {
            r.population_uniques
                .map_or("–".into(), |p| estimate(r, p.zayatz))
        });
        row("population uniques: Pitman", &|r| {
            r.population_uniques
                .map_or("–".into(), |p| estimate(r, p.pitman))
        });
        row("population uniques: SNB", &|r| {
            r.population_uniques
                .map_or("–".into(), |p| p.snb.map_or("no fit".into(), pct))
        });
        row("population uniques: Dankar's rule", &|r| {
            r.population_uniques.map_or("–".into(), |p| {
                format!(
                    "{} ({})",
                    pct(p.dankar),
                    serde_json::to_value(p.dankar_model)
                        .ok()
                        .and_then(|v| v.as_str().map(String::from))
                        .unwrap_or_default()
                )
            })
        });
    }
    page.push_str("</table>");
    let colours = ["#9aa5b1", "#1f4e79"];
    let series = |shares: &dyn Fn(&RiskReport) -> Vec<f64>| -> Vec<(&str, &str, Vec<f64>)> {
        reports
            .iter()
            .zip(colours)
            .map(|((name, r), c)| (*name, c, shares(r)))
            .collect()
    };
    page.push_str("<h2>Class sizes and record risks</h2><div class=\"charts\">");
    let size_labels: Vec<&str> = SIZE_BINS.iter().map(|b| b.0).collect();
    page.push_str(&bars(
        "Records by the size of their class",
        &size_labels,
        &series(&size_shares),
    ));
    let risk_labels: Vec<&str> = RISK_BINS.iter().map(|b| b.0).collect();
    page.push_str(&bars(
        "Records by their prosecutor risk",
        &risk_labels,
        &series(&risk_shares),
    ));
    page.push_str("</div><h2>Class-size histogram</h2>");
    for (name, r) in &reports {
        let _ = write!(
            page,
            "<details><summary>{} ({} classes)</summary><table><tr><th>size</th><th>classes</th><th>records</th></tr>",
            name, r.classes
        );
        for h in &r.histogram {
            let (class, note) = if r.suppressed_class_size == Some(h.size) {
                (
                    " class=\"suppressed\"",
                    " (one of them: the suppressed records, written as *)",
                )
            } else {
                ("", "")
            };
            let _ = write!(
                page,
                "<tr{class}><td>{}</td><td>{}</td><td>{}{note}</td></tr>",
                h.size,
                h.classes,
                h.size * h.classes
            );
        }
        page.push_str("</table></details>");
    }
    page.push_str("</body></html>\n");
    page
}

#[cfg(test)]
mod tests {
    use super::{nice_ticks, tick_label};

    #[test]
    fn ticks_fall_on_round_values() {
        assert_eq!(nice_ticks(77.52, 4), [0.0, 20.0, 40.0, 60.0, 80.0]);
        assert_eq!(nice_ticks(80.0, 4), [0.0, 20.0, 40.0, 60.0, 80.0]);
        assert_eq!(nice_ticks(0.0, 4), [0.0, 0.5, 1.0]);
        assert_eq!(nice_ticks(100.0, 4).last(), Some(&100.0));
        let small = nice_ticks(0.037, 4);
        assert_eq!(small.len(), 5);
        assert_eq!(tick_label(small[3], small[1]), "0.03");
        assert_eq!(tick_label(40.0, 20.0), "40");
    }
}
