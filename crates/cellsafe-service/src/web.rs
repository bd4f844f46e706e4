//! The admin web page: server-side HTML over the same state as the API.

use std::sync::Arc;

use axum::Router;

use crate::app::App;

/// The web page's routes (none yet).
pub fn routes() -> Router<Arc<App>> {
    Router::new()
}
