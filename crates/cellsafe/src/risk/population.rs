//! Population uniqueness: the share of the population that is unique on the
//! quasi-identifiers, estimated from the sample's class sizes and the population's size
//! (ARX's `RiskModelPopulationUniqueness`), by four models:
//!
//! - Zayatz (1991): the sample's uniques scaled by the chance that a population unique is
//!   drawn, with hypergeometric sampling;
//! - Pitman's sampling formula, its two parameters fitted by maximum likelihood;
//! - the slide negative binomial (SNB) model of Chen and Keller-McNulty, fitted to the
//!   numbers of classes of size 1 and 2;
//! - Dankar et al.'s decision rule: Pitman for sampling fractions up to 10 % (Zayatz when
//!   Pitman finds nothing), else the smaller of Zayatz and SNB.
//!
//! The fits use ARX's Newton–Raphson solver with its defaults (accuracy 10⁻⁶, 1,000
//! iterations per start, its given start and then 16 fixed ones), step for step, so the
//! estimates are ARX's. An estimate that is not a number or is 0 counts as "none" and is
//! reported as 0, as in ARX, except SNB's: `None` then, with a note saying why.

use serde::Serialize;

use super::special::{digamma, gamma, ln_gamma, trigamma};
use super::Histogram;

/// Why [`PopulationUniques::snb`] is `None`.
pub const SNB_NO_FIT: &str = "no fit: the slide negative binomial model's equations for the \
     numbers of classes of size 1 and 2 have no valid solution that ARX's Newton solver \
     reaches from its start points (ARX reports 0)";

/// The four estimates, as shares of the population (each in [0, 1]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct PopulationUniques {
    /// The population's size.
    pub population: u64,
    /// Zayatz's model.
    pub zayatz: f64,
    /// Pitman's model.
    pub pitman: f64,
    /// The SNB model; `None` (JSON `null`) when it finds no fit, `snb_note` saying so
    /// (ARX reports 0 then, which would read as "no population uniques").
    pub snb: Option<f64>,
    /// Why `snb` is `null`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snb_note: Option<&'static str>,
    /// Dankar et al.'s decision rule.
    pub dankar: f64,
    /// The model the decision rule chose.
    pub dankar_model: Model,
}

/// A population-uniqueness model.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Model {
    /// Zayatz.
    Zayatz,
    /// Pitman.
    Pitman,
    /// Slide negative binomial.
    Snb,
    /// The decision rule itself (no sample uniques: every estimate is 0).
    #[default]
    Dankar,
}

/// The estimates for a sample with class sizes `histogram` from a population of
/// `population` records (at least the sample's records).
pub fn uniques(histogram: &Histogram, population: u64) -> PopulationUniques {
    let mut out = PopulationUniques {
        population,
        zayatz: 0.0,
        pitman: 0.0,
        snb: Some(0.0),
        snb_note: None,
        dankar: 0.0,
        dankar_model: Model::default(),
    };
    let c1 = histogram.classes_of_size(1) as f64;
    if c1 == 0.0 || population == 0 || histogram.records == 0 {
        return out;
    }
    let p = population as f64;
    let fraction = histogram.records as f64 / p;
    let valid = |x: f64| !x.is_nan() && x != 0.0;
    let zayatz = zayatz(histogram, population);
    let pitman = pitman(histogram, p);
    let snb = snb(histogram, fraction);
    let (dankar, model) = if fraction <= 0.1 {
        if valid(pitman) {
            (pitman, Model::Pitman)
        } else {
            (zayatz, Model::Zayatz)
        }
    } else if valid(snb) {
        if zayatz < snb {
            (zayatz, Model::Zayatz)
        } else {
            (snb, Model::Snb)
        }
    } else {
        (zayatz, Model::Zayatz)
    };
    let share = |x: f64| if valid(x) { x / p } else { 0.0 };
    out.zayatz = share(zayatz);
    out.pitman = share(pitman);
    if valid(snb) {
        out.snb = Some(share(snb));
    } else {
        out.snb = None;
        out.snb_note = Some(SNB_NO_FIT);
    }
    out.dankar = share(dankar);
    out.dankar_model = model;
    out
}

/// The share of a population of `population` records estimated unique by `model`, as
/// ARX's `RiskModelPopulationUniqueness` gives it to a privacy model: 0 when the model
/// finds no fit. For Dankar's rule without `zayatz_fallback`, a sample of at most 10 % on
/// which Pitman finds no fit gives ARX's unset estimate, −1 record.
pub fn share(h: &Histogram, population: u64, model: Model, zayatz_fallback: bool) -> f64 {
    if h.classes_of_size(1) == 0 || population == 0 || h.records == 0 {
        return 0.0;
    }
    let p = population as f64;
    let fraction = h.records as f64 / p;
    let valid = |x: f64| !x.is_nan() && x != 0.0;
    let uniques = match model {
        Model::Zayatz => zayatz(h, population),
        Model::Pitman => pitman(h, p),
        Model::Snb => snb(h, fraction),
        Model::Dankar if fraction <= 0.1 => {
            let pitman = pitman(h, p);
            if valid(pitman) {
                pitman
            } else if zayatz_fallback {
                zayatz(h, population)
            } else {
                -1.0
            }
        }
        Model::Dankar => {
            let (snb, zayatz) = (snb(h, fraction), zayatz(h, population));
            if valid(snb) && zayatz >= snb {
                snb
            } else {
                zayatz
            }
        }
    };
    if valid(uniques) {
        uniques / p
    } else {
        0.0
    }
}

/// P(X = 1) for X hypergeometric: `draws` draws without replacement from `population`
/// items of which `successes` are successes.
fn hypergeometric_one(population: u64, successes: u64, draws: u64) -> f64 {
    if successes == 0 || draws == 0 || successes > population || draws > population {
        return 0.0;
    }
    // s·n·Π_{i<s−1}(N−n−i) / Π_{i<s}(N−i), as a product of ratios below 1
    let (n_pop, s, n) = (population as f64, successes as f64, draws as f64);
    let mut p = s * n / n_pop;
    for i in 0..successes - 1 {
        let top = n_pop - n - i as f64;
        if top <= 0.0 {
            return 0.0;
        }
        p *= top / (n_pop - 1.0 - i as f64);
        if p == 0.0 {
            break;
        }
    }
    p
}

/// Zayatz's estimate of the number of population uniques.
fn zayatz(h: &Histogram, population: u64) -> f64 {
    let classes = h.classes as f64;
    let c1 = h.classes_of_size(1) as f64;
    let n = h.records;
    let temp: f64 = h
        .sizes
        .iter()
        .map(|&(size, count)| count as f64 / classes * hypergeometric_one(population, size, n))
        .sum();
    let uniqueness = (c1 / classes * hypergeometric_one(population, 1, n)) / temp;
    c1 * uniqueness / (n as f64 / population as f64)
}

type Vector = (f64, f64);
/// Row-major: ((∂f₁/∂x, ∂f₁/∂y), (∂f₂/∂x, ∂f₂/∂y)).
type Matrix = ((f64, f64), (f64, f64));

/// ARX's Newton–Raphson (`de.linearbits.newtonraphson.NewtonRaphson2D` with
/// `ARXSolverConfiguration`'s defaults and no time limit): from `start`, then from each of
/// 16 fixed start values; a try ends after 1,000 steps, on NaN, or when `allowed` rejects
/// a step. NaN when nothing is found.
fn solve(
    start: Vector,
    mut f: impl FnMut(Vector) -> (Vector, Matrix),
    allowed: impl Fn(Vector) -> bool,
) -> Vector {
    const ACCURACY: f64 = 1e-6;
    const PER_TRY: usize = 1000;
    let starts = start_values();
    let total = (starts.len() + 1) * PER_TRY;
    let mut iterations_total = 0;
    let mut next_start = 0;
    let mut first = true;
    while iterations_total <= total {
        let mut x = if first {
            first = false;
            start
        } else {
            next_start += 1;
            starts[next_start - 1]
        };
        let mut iterations = 0;
        loop {
            iterations_total += 1;
            let ((o1, o2), ((a, b), (c, d))) = f(x);
            if o1.abs() <= ACCURACY && o2.abs() <= ACCURACY {
                return x;
            }
            // inverse, then object × inverse, as ARX multiplies
            let scalar = 1.0 / (a * d - b * c);
            let (ia, ib, ic, id) = (d * scalar, -b * scalar, -c * scalar, a * scalar);
            let step = (ia * o1 + ib * o2, ic * o1 + id * o2);
            x = (x.0 - step.0, x.1 - step.1);
            // ARX stops for good once the last start value has taken one step
            if next_start == starts.len() {
                return (f64::NAN, f64::NAN);
            }
            if !allowed(x) {
                break;
            }
            let stop = x.0.is_nan() || x.1.is_nan() || iterations >= PER_TRY;
            iterations += 1;
            if stop {
                break;
            }
        }
    }
    (f64::NAN, f64::NAN)
}

/// ARX's fixed start values: (d₁, d₂) for d₁, d₂ = 0, 0.33, 0.66, 0.99 (as ARX adds them up).
fn start_values() -> Vec<Vector> {
    let mut steps = Vec::new();
    let mut d = 0.0f64;
    while d < 1.0 {
        steps.push(d);
        d += 0.33;
    }
    let mut out = Vec::new();
    for &d1 in &steps {
        for &d2 in &steps {
            out.push((d1, d2));
        }
    }
    out
}

/// Pitman's estimate of the number of population uniques (NaN when no fit is found).
fn pitman(h: &Histogram, p: f64) -> f64 {
    let c1 = h.classes_of_size(1) as f64;
    let mut c2 = h.classes_of_size(2) as f64;
    let u = h.classes as f64;
    let n = h.records as f64;
    if c2 == 0.0 {
        c2 = 1.0;
    }
    let c = c1 * (c1 - 1.0) / c2;
    let t = (n * u * c - c1 * (n - 1.0) * (2.0 * u + c)) / (2.0 * c1 * u + c1 * c - n * c);
    let a = (t * (c1 - n) + (n - 1.0) * c1) / (n * u);
    let positive = |x: Vector| x.0 >= 0.0;
    let mut result = solve((t, a), |x| pitman_closed(&h.sizes, u, n, x), positive);
    let iterative = |result: Vector| {
        let (o1, o2) = pitman_objective(&h.sizes, u, n, result);
        o1.is_nan() || o2.is_nan() || o1.abs() > 1e-6 || o2.abs() > 1e-6
    };
    if result.0.is_nan() || result.1.is_nan() || iterative(result) {
        result = solve((t, a), |x| pitman_iterative(&h.sizes, u, n, x), positive);
    }
    pitman_result(result, p)
}

/// The likelihood equations of Pitman's model and their derivatives, in closed form.
fn pitman_closed(classes: &[(u64, u64)], u: f64, n: f64, (t, a): Vector) -> (Vector, Matrix) {
    let val0 = u - 1.0;
    let val1 = digamma(val0 + t / a + 1.0);
    let val2 = trigamma((a + t + a * val0) / a);
    let val3 = trigamma(t / a + 1.0);
    let val4 = digamma(t / a + 1.0);
    let val5 = a * a;
    let d1 = (val3 - val2) / val5;
    let d5 = ((a * val1 + t * val2) - a * val4 - t * val3) / (val5 * a);
    let d3 = ((((val5 * val0) - t * t * val2) + t * t * val3) - 2.0 * a * t * val1
        + 2.0 * a * t * val4)
        / (val5 * val5);
    let o1 = (val1 - val4) / a;
    let o3 = (-t * val1 + a * val0 + t * val4) / (a * a);
    let o2 = digamma(n + t) - digamma(t + 1.0);
    let d2 = trigamma(t + 1.0) - trigamma(n + t);
    let val6 = digamma(1.0 - a);
    let val7 = trigamma(1.0 - a);
    let mut d4 = 0.0;
    let mut o4 = 0.0;
    for &(size, count) in classes {
        if size != 1 {
            let count = count as f64;
            d4 += count * (val7 - trigamma(size as f64 - a));
            o4 += count * (digamma(size as f64 - a) - val6);
        }
    }
    ((o1 - o2, o3 - o4), ((d2 - d1, -d5), (-d5, -d3 - d4)))
}

/// The same equations and derivatives as sums.
fn pitman_iterative(classes: &[(u64, u64)], u: f64, n: f64, (t, a): Vector) -> (Vector, Matrix) {
    let (mut d1, mut d2, mut d3, mut d4, mut d5) = (0.0, 0.0, 0.0, 0.0, 0.0);
    let (mut o1, mut o2, mut o3, mut o4) = (0.0, 0.0, 0.0, 0.0);
    let mut i = 1.0;
    while i < u {
        let val0 = t + i * a;
        let val1 = 1.0 / val0;
        let val3 = 1.0 / (val0 * val0);
        let val4 = i * val3;
        d1 += val3;
        d5 += val4;
        d3 += i * val4;
        o1 += val1;
        o3 += i * val1;
        i += 1.0;
    }
    for &(size, count) in classes {
        if size != 1 {
            let (mut v1, mut v2) = (0.0, 0.0);
            for j in 1..size {
                let v3 = j as f64 - a;
                v1 += 1.0 / (v3 * v3);
                v2 += 1.0 / v3;
            }
            d4 += count as f64 * v1;
            o4 += count as f64 * v2;
        }
    }
    let mut i = 1.0;
    while i < n {
        let val0 = t + i;
        d2 += 1.0 / (val0 * val0);
        o2 += 1.0 / val0;
        i += 1.0;
    }
    ((o1 - o2, o3 - o4), ((d2 - d1, -d5), (-d5, -d3 - d4)))
}

/// The equations alone, as sums (ARX's check of a closed-form solution).
fn pitman_objective(classes: &[(u64, u64)], u: f64, n: f64, x: Vector) -> Vector {
    pitman_iterative(classes, u, n, x).0
}

/// The number of population uniques under Pitman's model with parameters (θ, α).
fn pitman_result((t, a): Vector, p: f64) -> f64 {
    if a.is_nan() || t.is_nan() || a == 0.0 {
        return f64::NAN;
    }
    let in_range = |v: f64| if (0.0..=p).contains(&v) { v } else { f64::NAN };
    let v1 = in_range((ln_gamma(t + 1.0) - ln_gamma(t + a)).exp() * p.powf(a));
    let v2 = in_range(gamma(t + 1.0) / gamma(t + a) * p.powf(a));
    match (v1.is_nan(), v2.is_nan()) {
        (true, true) => f64::NAN,
        (false, false) => v1.max(v2),
        (true, false) => v2,
        (false, true) => v1,
    }
}

/// The SNB model's estimate of the number of population uniques.
fn snb(h: &Histogram, f: f64) -> f64 {
    let c1 = h.classes_of_size(1) as f64;
    let c2 = h.classes_of_size(2) as f64;
    let k = snb_classes(h, f);
    let (a, b) = solve(
        (1.0, 1.0),
        |x| (snb_object(k, f, c1, c2, x), snb_derivatives(k, f, x)),
        |_| true,
    );
    k * b.powf(a)
}

/// The estimated number of non-empty classes in the population (ARX's formula, as
/// written: the `− 1` is inside its sum).
fn snb_classes(h: &Histogram, f: f64) -> f64 {
    let n = h.classes as f64;
    let n1 = h.classes_of_size(1) as f64;
    let (mut var1, mut var2, mut var3, mut var4) = (0.0, 0.0, 0.0, 0.0);
    let var5 = f * f;
    for &(size, count) in &h.sizes {
        let (val0, val1) = (size as f64, count as f64);
        let val2 = (1.0 - f).powf(val0) * val1;
        var1 += val0 * var5 * (1.0 - var5).powf(val0 - 1.0) * val1;
        var2 += val2 * (1.0 + f).powf(val0) - 1.0;
        var3 += val2;
        var4 += val0 * f * (1.0 - f).powf(val0 - 1.0) * val1;
    }
    n + n1 * (var1 / var2) * (var3 / var4) * (var3 / var4)
}

fn snb_object(k: f64, f: f64, c1: f64, c2: f64, (a, b): Vector) -> Vector {
    let dividend = (1.0 - f) * (1.0 - b);
    (
        k * f * (b / (1.0 - dividend)).powf(a) * ((a * dividend) / (1.0 - dividend) + 1.0) - c1,
        k * a * b.powf(a) * (f * f) * (1.0 - b) / 2.0
            * (1.0 - dividend).powf(a + 2.0)
            * (2.0 - (1.0 - a) * dividend)
            - c2,
    )
}

fn snb_derivatives(k: f64, f: f64, (a, b): Vector) -> Matrix {
    let val0 = (b - 1.0) * (f - 1.0);
    let val1 = val0 - 1.0;
    let val2 = 1.0 - val0;
    let val3 = a * val0 / val1 - 1.0;
    let val4 = (-b / val1).powf(a);
    let val6 = f.powf(2.0);
    let val7 = b.powf(a);
    let val8 = val7 * val6 * k;
    let val9 = a * val8;
    let val10 = 2.0 * val2.powf(a + 2.0);
    let val11 = val1.powf(2.0);
    let val13 = f * k;
    let val14 = f - 1.0;
    let val15 = a - 1.0;
    let val16 = b - 1.0;
    let val17 = val15 * val0;
    let val18 = val6 * k;
    let val19 = val17 + 2.0;
    let val20 = val18 * val19;
    let x1 = -val13 * (-b / val1).ln() * val3 * val4 - (val13 * val4 * val0) / val1;
    let x2 = a * val13 * (1.0 / val1 - (b * val14) / val11) * val3 * (-b / val1).powf(val15)
        - val13 * val4 * ((a * val14) / val1 - (a * val16 * val14.powf(2.0)) / val11);
    let y1 = (val9 * val2.ln() * val19 * val16) / val10
        - (val9 * val16.powf(2.0) * val14) / val10
        - (val7 * val20 * val16) / val10
        - (a * val7 * val18 * b.ln() * val19 * val16) / val10;
    let y2 = -(val9 * val19) / val10
        - (a.powf(2.0) * b.powf(val15) * val20 * val16) / val10
        - (a * val7 * val18 * val17) / val10
        - (a * val7 * val20 * (a + 2.0) * val0) / (2.0 * val2.powf(a + 3.0));
    ((x1, x2), (y1, y2))
}
