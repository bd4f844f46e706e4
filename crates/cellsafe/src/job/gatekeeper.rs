//! The gatekeeper's center from a config: `[input]`'s roles and hierarchies
//! (`[attributes]`), `[safety]`, `[[privacy]]` and `[gatekeeper]` over a table the front end
//! loaded (from its database). Errors name the config key at fault.

use crate::criteria::{Model, ModelSpec};
use crate::data::table::Table;
use crate::error::{Error, Result};
use crate::gatekeeper::Center;
use crate::job::config::Config;

/// The center `config` describes over `table`.
pub fn center(config: &Config, table: Table) -> Result<Center> {
    let file = config.file_name();
    let data = config.dataset_with(table, true)?;
    for (i, m) in config.privacy.iter().enumerate() {
        if !matches!(m, ModelSpec::LogicalSafety) {
            Model::bind(m, &data)
                .map_err(|e| Error::config(&file, format!("privacy[{i}]"), e.to_string()))?;
        }
    }
    let spec = config.gatekeeper.clone().unwrap_or_default();
    if spec.max_tests == 0 {
        return Err(Error::config(
            &file,
            "gatekeeper.max_tests",
            "must be at least 1",
        ));
    }
    for (name, &r) in &spec.radius {
        if !(r.is_finite() && r > 0.0) {
            return Err(Error::config(
                &file,
                format!("gatekeeper.radius.{name}"),
                "a radius must be a positive number",
            ));
        }
    }
    let radius: Vec<String> = spec.radius.keys().cloned().collect();
    let center = Center::new(data, &config.privacy, spec)?;
    for name in radius {
        let public_number = center.role(&name) == Some(crate::data::Role::QuasiIdentifying)
            && center.is_numeric(&name);
        if !public_number {
            return Err(Error::config(
                &file,
                format!("gatekeeper.radius.{name}"),
                format!("`{name}` is not a numeric quasi-identifier"),
            ));
        }
    }
    Ok(center)
}
