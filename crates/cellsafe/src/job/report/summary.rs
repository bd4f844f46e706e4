//! The run in a few lines for a person at a terminal: what was released, where, how much
//! was suppressed and how it was generalized, in the same words whatever the search (levels
//! for the level-based searches, groups for local recoding, cells for the set-based
//! search), then the report's warnings, which would otherwise stay inside the JSON. The
//! front end prints them; the report holds the details.

use super::Report;
use crate::release::SuppressedRows;

impl Report {
    /// The summary line of a run that found a release, then one line per warning
    /// (`warning: ...`). Without a release, only the warnings.
    pub fn summary(&self) -> Vec<String> {
        let mut lines = Vec::new();
        if self.found {
            lines.push(self.released_line());
        }
        lines.extend(self.warnings.iter().map(|w| format!("warning: {w}")));
        lines
    }

    fn released_line(&self) -> String {
        let rows = self.rows as u64;
        let suppressed = self.suppressed_rows;
        let dropped = self
            .layout
            .as_ref()
            .is_some_and(|l| l.suppressed_rows == SuppressedRows::Drop);
        let written = if dropped { rows - suppressed } else { rows };
        let whither = match &self.output {
            Some(path) => format!(" to {path}"),
            None => String::new(),
        };
        let share = if rows == 0 {
            0.0
        } else {
            100.0 * suppressed as f64 / rows as f64
        };
        let suppressed = match (suppressed, dropped) {
            (0, _) => "no row suppressed".to_string(),
            (n, true) => format!("{n} rows suppressed ({share:.2}%, left out)"),
            (n, false) => format!("{n} rows suppressed ({share:.2}%, written as *)"),
        };
        let generalized = if let Some(local) = &self.local {
            format!(
                "local recoding into {} groups (smallest {})",
                local.groups, local.min_group
            )
        } else if let Some(set) = &self.set_based {
            format!(
                "{} cells generalized one by one",
                set.search.generalized_cells
            )
        } else if let Some(levels) = &self.levels {
            let named: Vec<String> = levels.iter().map(|(q, l)| format!("{q} {l}")).collect();
            format!("levels {}", named.join(", "))
        } else {
            "as it is".to_string()
        };
        let metric = serde_json::to_value(self.metric)
            .ok()
            .and_then(|v| v.as_str().map(String::from))
            .unwrap_or_default();
        let score = match self.score {
            Some(s) => format!("; {metric} {s}"),
            None => String::new(),
        };
        let count = if written == rows {
            format!("{rows} rows")
        } else {
            format!("{written} of {rows} rows")
        };
        format!("released {count}{whither}: {suppressed}; {generalized}{score}")
    }
}
