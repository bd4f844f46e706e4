//! How well a found set represents the exact front (paper 003, section 7).
//!
//! Both take raw objective values (as measured, losses not negated) for the distance, and
//! oriented ones (see [`super::oriented`]) for boxes.

use std::collections::BTreeSet;

use super::front::box_of;

/// Convergence error: every value divided by its objective's maximum over the exact front
/// `front` (left as is where that maximum is 0), then the sum over `found` of the Euclidean
/// distance to the nearest member of `front`. 0 when every found solution is on the front.
pub fn convergence_error(front: &[Vec<f64>], found: &[Vec<f64>]) -> f64 {
    let Some(first) = front.first() else {
        return 0.0;
    };
    let scale: Vec<f64> = (0..first.len())
        .map(|i| {
            let m = front.iter().map(|v| v[i].abs()).fold(0.0, f64::max);
            if m > 0.0 {
                m
            } else {
                1.0
            }
        })
        .collect();
    let norm = |v: &[f64]| -> Vec<f64> { v.iter().zip(&scale).map(|(x, s)| x / s).collect() };
    let front: Vec<Vec<f64>> = front.iter().map(|v| norm(v)).collect();
    found
        .iter()
        .map(|v| {
            let v = norm(v);
            front
                .iter()
                .map(|m| {
                    m.iter()
                        .zip(&v)
                        .map(|(a, b)| (a - b) * (a - b))
                        .sum::<f64>()
                        .sqrt()
                })
                .fold(f64::INFINITY, f64::min)
        })
        .sum()
}

/// Representation ratio: of the non-dominated boxes of the exact front's oriented values
/// `front` under `eps`, the share that hold one of `found`'s oriented values. 1 when every
/// such box is represented.
pub fn representation_ratio(front: &[Vec<f64>], found: &[Vec<f64>], eps: &[f64]) -> f64 {
    let boxes: BTreeSet<Vec<i64>> = front.iter().map(|v| box_of(v, eps)).collect();
    let dominated = |b: &Vec<i64>| {
        boxes
            .iter()
            .any(|c| c != b && c.iter().zip(b).all(|(x, y)| x >= y))
    };
    let marked: BTreeSet<&Vec<i64>> = boxes.iter().filter(|b| !dominated(b)).collect();
    if marked.is_empty() {
        return 1.0;
    }
    let occupied: BTreeSet<Vec<i64>> = found.iter().map(|v| box_of(v, eps)).collect();
    marked.iter().filter(|b| occupied.contains(**b)).count() as f64 / marked.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Hand-made fronts.
    #[test]
    fn by_hand() {
        // front (raw): (10, 2), (5, 4); maxima 10 and 4 → (1, .5), (.5, 1)
        let front = vec![vec![10.0, 2.0], vec![5.0, 4.0]];
        assert_eq!(convergence_error(&front, &front), 0.0);
        // (8, 2) → (.8, .5): nearest (1, .5) at 0.2
        let ce = convergence_error(&front, &[vec![8.0, 2.0]]);
        assert!((ce - 0.2).abs() < 1e-12, "{ce}");
        // two found points add up: 0.2 + distance of (5, 3) → (.5, .75) to (.5, 1) = 0.25
        let ce = convergence_error(&front, &[vec![8.0, 2.0], vec![5.0, 3.0]]);
        assert!((ce - 0.45).abs() < 1e-12, "{ce}");

        // oriented front in boxes of 1: (3, 1), (2, 2), (1, 3), and (1, 1) dominated
        let oriented = vec![
            vec![3.5, 1.0],
            vec![2.2, 2.9],
            vec![1.0, 3.0],
            vec![1.0, 1.0],
        ];
        let eps = [1.0, 1.0];
        assert_eq!(representation_ratio(&oriented, &oriented, &eps), 1.0);
        let rr = representation_ratio(&oriented, &[vec![3.9, 1.5], vec![1.2, 3.7]], &eps);
        assert!((rr - 2.0 / 3.0).abs() < 1e-12, "{rr}");
        // a point in a dominated box counts for nothing
        assert_eq!(
            representation_ratio(&oriented, &[vec![1.0, 1.0]], &eps),
            0.0
        );
    }
}
