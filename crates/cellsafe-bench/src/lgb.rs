//! Paper 004's experiments (Figures 5–8) on `examples/lgb`: LGB_MDP and LGB_NCP for
//! k ∈ {5, 8, 10} and l ∈ {5, 8, 10, 12, 15, 18, 20} (t = 0.2 for sex), measured by the
//! discernibility penalty C_DM, NCP and the relative error of 1,000 seeded aggregate
//! queries; then LGB_MDP's query error at sensitive-value densities 10–40 %. Prints
//! markdown tables and, with an SVG directory, writes one line chart per figure.
//! `docs/lgb.md` records the output.
//!
//! The census extract's occupation has 14 values, the paper's 257: l-unique buckets of
//! occupation cannot exceed its largest feasible l (the share of its commonest value), so
//! occupation's l is capped there and the tables say where.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::Result;
use cellsafe::algorithm::lgb::query::query_error;
use cellsafe::algorithm::lgb::{lgb, LgbData, LgbSpec, Protection};
use cellsafe::algorithm::local::{Method, Mode};
use cellsafe::job::config::Config;
use cellsafe::job::lgb::{data, QUERY_SEED};
use cellsafe::job::synth::flags;
use cellsafe::observer::Silent;

const KS: [usize; 3] = [5, 8, 10];
const LS: [usize; 7] = [5, 8, 10, 12, 15, 18, 20];
const DENSITIES: [f64; 4] = [0.1, 0.2, 0.3, 0.4];

/// A chart's file stem, what it plots, and how to read it from a point.
type Figure<'a> = (&'a str, &'a str, &'a dyn Fn(&Point) -> f64);

/// One run's figures.
#[derive(Clone, Copy)]
struct Point {
    c_dm: u64,
    ncp: f64,
    mean: f64,
    median: f64,
    /// occupation's l, when capped below the l asked for.
    occupation_l: Option<usize>,
}

/// Runs LGB on `data` with protection `l` (t = 0.2 for sex), occupation's l lowered until
/// its buckets are feasible.
fn point(data: &mut LgbData, k: usize, l: usize, method: Method, queries: usize) -> Result<Point> {
    let mut occupation_l = l;
    loop {
        for b in &mut data.bucketed {
            b.protection = match b.name.as_str() {
                "sex" => Protection::Closeness {
                    t: 0.2,
                    ordered: false,
                },
                "occupation" => Protection::Diversity { l: occupation_l },
                _ => Protection::Diversity { l },
            };
        }
        let spec = LgbSpec {
            k,
            mode: Mode::Strict,
            method,
        };
        match lgb(data, &spec, &Silent) {
            Ok(Some(out)) => {
                let c_dm = out.groups.iter().map(|g| (g.len() as u64).pow(2)).sum();
                let mut ncp = 0.0;
                for (rows, values) in out.groups.iter().zip(&out.values) {
                    for (v, d) in values.iter().zip(&out.domains) {
                        if let Some(v) = v {
                            ncp += d.ncp(v) * rows.len() as f64;
                        }
                    }
                }
                let e = query_error(data, &out, queries, QUERY_SEED)
                    .ok_or_else(|| anyhow::anyhow!("no query answered"))?;
                return Ok(Point {
                    c_dm,
                    ncp,
                    mean: e.mean,
                    median: e.median,
                    occupation_l: (occupation_l < l).then_some(occupation_l),
                });
            }
            Ok(None) => anyhow::bail!("fewer than k rows"),
            Err(e) if occupation_l > 1 && e.to_string().contains("occupation") => {
                occupation_l -= 1;
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// A line chart as standalone SVG: one polyline per series over the shared x values.
fn chart(
    title: &str,
    x_label: &str,
    y_label: &str,
    series: &[(String, Vec<(f64, f64)>)],
) -> String {
    let (w, h, left, bottom, top, right) = (560.0, 340.0, 70.0, 50.0, 40.0, 130.0);
    let points = series.iter().flat_map(|(_, p)| p.iter());
    let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, f64::MIN, 0.0f64, f64::MIN);
    for &(x, y) in points {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if x1 <= x0 {
        x1 = x0 + 1.0;
    }
    if y1 <= y0 {
        y1 = y0 + 1.0;
    }
    let px = |x: f64| left + (x - x0) / (x1 - x0) * (w - left - right);
    let py = |y: f64| h - bottom - (y - y0) / (y1 - y0) * (h - bottom - top);
    let colours = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
    ];
    let mut s = String::new();
    let _ = write!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" font-family="sans-serif" font-size="12"><rect width="100%" height="100%" fill="white"/><text x="{}" y="22" text-anchor="middle" font-size="14">{title}</text>"#,
        (left + w - right) / 2.0
    );
    let _ = write!(
        s,
        r#"<line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="black"/><line x1="{left}" y1="{top}" x2="{left}" y2="{}" stroke="black"/>"#,
        h - bottom,
        w - right,
        h - bottom,
        h - bottom
    );
    for i in 0..=4 {
        let y = y0 + (y1 - y0) * i as f64 / 4.0;
        let _ = write!(
            s,
            r##"<text x="{}" y="{}" text-anchor="end">{}</text><line x1="{left}" y1="{}" x2="{}" y2="{}" stroke="#ddd"/>"##,
            left - 6.0,
            py(y) + 4.0,
            short(y),
            py(y),
            w - right,
            py(y)
        );
    }
    let xs: Vec<f64> = series
        .first()
        .map(|(_, p)| p.iter().map(|q| q.0).collect())
        .unwrap_or_default();
    for x in xs {
        let _ = write!(
            s,
            r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#,
            px(x),
            h - bottom + 16.0,
            short(x)
        );
    }
    let _ = write!(
        s,
        r#"<text x="{}" y="{}" text-anchor="middle">{x_label}</text><text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{y_label}</text>"#,
        (left + w - right) / 2.0,
        h - 12.0,
        (top + h - bottom) / 2.0,
        (top + h - bottom) / 2.0
    );
    for (i, (name, p)) in series.iter().enumerate() {
        let c = colours[i % colours.len()];
        let line: Vec<String> = p
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", px(x), py(y)))
            .collect();
        let _ = write!(
            s,
            r#"<polyline fill="none" stroke="{c}" stroke-width="2" points="{}"/>"#,
            line.join(" ")
        );
        for &(x, y) in p {
            let _ = write!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="3" fill="{c}"/>"#,
                px(x),
                py(y)
            );
        }
        let ly = top + 10.0 + 18.0 * i as f64;
        let _ = write!(
            s,
            r#"<line x1="{}" y1="{ly}" x2="{}" y2="{ly}" stroke="{c}" stroke-width="2"/><text x="{}" y="{}">{name}</text>"#,
            w - right + 10.0,
            w - right + 30.0,
            w - right + 36.0,
            ly + 4.0
        );
    }
    s.push_str("</svg>\n");
    s
}

/// A number in a few characters.
fn short(x: f64) -> String {
    if x.abs() >= 1e6 {
        format!("{:.2}M", x / 1e6)
    } else if x.abs() >= 1e4 {
        format!("{:.0}k", x / 1e3)
    } else if x.fract() == 0.0 {
        format!("{x:.0}")
    } else {
        format!("{x:.2}")
    }
}

/// Prints the tables (and writes the charts into `svg` when given).
pub fn run(queries: usize, svg: Option<&Path>) -> Result<()> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lgb/lgb.toml");
    let config = Config::from_file(&path)?;
    let (table, _) = config.read(&Silent)?;
    let (mut base, _) = data(&config, table)?;
    outln!(
        "paper 004 on examples/lgb: {} rows; t = 0.2 for sex; {queries} queries (seed {QUERY_SEED})",
        base.table.rows()
    );
    outln!();
    outln!("| k | l | C_DM MDP | C_DM NCP | NCP MDP | NCP NCP | error MDP (median / mean) | error NCP (median / mean) | occupation l |");
    outln!("|---:|---:|---:|---:|---:|---:|---|---|---|");
    let mut grid: Vec<(usize, usize, Point, Point)> = Vec::new();
    for k in KS {
        for l in LS {
            let m = point(&mut base, k, l, Method::Mdp, queries)?;
            let n = point(&mut base, k, l, Method::Ncp, queries)?;
            outln!(
                "| {k} | {l} | {} | {} | {:.0} | {:.0} | {:.2} / {:.1} | {:.2} / {:.1} | {} |",
                m.c_dm,
                n.c_dm,
                m.ncp,
                n.ncp,
                m.median,
                m.mean,
                n.median,
                n.mean,
                m.occupation_l.map_or("as asked".into(), |x| x.to_string())
            );
            grid.push((k, l, m, n));
        }
    }
    outln!();
    outln!("Density of sensitive values (LGB_MDP): query error, median / mean");
    outln!();
    outln!("| density | k | l=5 | l=10 | l=15 | l=20 |");
    outln!("|---:|---:|---|---|---|---|");
    let semi: Vec<usize> = base
        .flags
        .iter()
        .enumerate()
        .filter(|(_, f)| f.is_some())
        .map(|(a, _)| a)
        .collect();
    let mut density_points: Vec<(f64, usize, usize, Point)> = Vec::new();
    for d in DENSITIES {
        let mut data = base.clone();
        let drawn = flags(data.table.rows(), semi.len(), d, 1);
        for (&a, f) in semi.iter().zip(drawn) {
            data.flags[a] = Some(f);
        }
        for k in KS {
            let mut cells = String::new();
            for l in [5, 10, 15, 20] {
                let p = point(&mut data, k, l, Method::Mdp, queries)?;
                let _ = write!(cells, " {:.2} / {:.1} |", p.median, p.mean);
                density_points.push((d, k, l, p));
            }
            outln!("| {:.0} % | {k} |{cells}", d * 100.0);
        }
    }
    if let Some(dir) = svg {
        std::fs::create_dir_all(dir)?;
        let by_k =
            |f: &dyn Fn(&Point) -> f64, ncp_method: bool| -> Vec<(String, Vec<(f64, f64)>)> {
                KS.iter()
                    .map(|&k| {
                        let p = grid
                            .iter()
                            .filter(|g| g.0 == k)
                            .map(|g| (g.1 as f64, f(if ncp_method { &g.3 } else { &g.2 })))
                            .collect();
                        (format!("k = {k}"), p)
                    })
                    .collect()
            };
        let figures: [Figure; 3] = [
            ("fig5", "C_DM", &|p| p.c_dm as f64),
            ("fig6", "NCP", &|p| p.ncp),
            ("fig7", "median relative error", &|p| p.median),
        ];
        for (name, what, f) in figures {
            for (method, ncp_method) in [("LGB_MDP", false), ("LGB_NCP", true)] {
                let file = dir.join(format!("{name}-{}.svg", method.to_lowercase()));
                std::fs::write(
                    &file,
                    chart(
                        &format!("{what}, {method}"),
                        "l",
                        what,
                        &by_k(f, ncp_method),
                    ),
                )?;
            }
        }
        for d in DENSITIES {
            let series: Vec<(String, Vec<(f64, f64)>)> = KS
                .iter()
                .map(|&k| {
                    let p = density_points
                        .iter()
                        .filter(|q| q.0 == d && q.1 == k)
                        .map(|q| (q.2 as f64, q.3.median))
                        .collect();
                    (format!("k = {k}"), p)
                })
                .collect();
            let file = dir.join(format!("fig8-{:.0}.svg", d * 100.0));
            let title = format!("median relative error, density {:.0} %", d * 100.0);
            std::fs::write(&file, chart(&title, "l", "median relative error", &series))?;
        }
        outln!();
        outln!("charts written to {}", dir.display());
    }
    Ok(())
}
