//! Who may use the studio: whoever holds the token of the URL printed at start.
//!
//! The token is 256 random bits, made once per start. Opening `/?token=…` with it gives the
//! browser a session: a second random value in a cookie (`HttpOnly`, `SameSite=Strict`, so
//! that no other site's page can send requests with it), and the browser is sent on to
//! `/` without the token in its address bar. Every other request must carry a live
//! session, or it is refused with 403. At most [`MAX_SESSIONS`] sessions are kept; a new
//! one beyond that ends the oldest.

use std::collections::VecDeque;
use std::sync::Mutex;

use rand::RngCore;

/// The name of the session cookie.
pub const COOKIE: &str = "cellsafe_studio";
/// Most sessions at once.
pub const MAX_SESSIONS: usize = 16;

/// The token and the live sessions.
pub struct Auth {
    token: String,
    sessions: Mutex<VecDeque<String>>,
}

impl Default for Auth {
    fn default() -> Self {
        Self::new()
    }
}

impl Auth {
    /// A new random token, no session.
    pub fn new() -> Auth {
        Auth {
            token: random_hex(),
            sessions: Mutex::new(VecDeque::new()),
        }
    }

    /// The token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// A new session when `token` is the token.
    pub fn open(&self, token: &str) -> Option<String> {
        if !same(token.as_bytes(), self.token.as_bytes()) {
            return None;
        }
        let session = random_hex();
        let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        if sessions.len() >= MAX_SESSIONS {
            sessions.pop_front();
        }
        sessions.push_back(session.clone());
        Some(session)
    }

    /// Whether the `Cookie` header `cookies` carries a live session.
    pub fn admits(&self, cookies: &str) -> bool {
        let Some(session) = cookies
            .split(';')
            .filter_map(|c| c.trim().split_once('='))
            .find(|(name, _)| *name == COOKIE)
            .map(|(_, v)| v)
        else {
            return false;
        };
        let sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
        sessions
            .iter()
            .any(|s| same(s.as_bytes(), session.as_bytes()))
    }

    /// The `Set-Cookie` value of `session`.
    pub fn cookie(session: &str) -> String {
        format!("{COOKIE}={session}; Path=/; HttpOnly; SameSite=Strict")
    }
}

/// 256 random bits as hex.
fn random_hex() -> String {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `a` and `b` are equal, in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_opens_a_session_and_only_a_session_is_admitted() {
        let auth = Auth::new();
        assert_eq!(auth.token().len(), 64);
        assert!(auth.open("").is_none());
        assert!(auth.open(&auth.token()[1..]).is_none());
        assert!(!auth.admits(&format!("{COOKIE}={}", auth.token())));
        let s = auth.open(auth.token()).unwrap();
        assert_ne!(s, auth.token());
        assert!(auth.admits(&format!("other=1; {COOKIE}={s}")));
        assert!(!auth.admits(&format!("{COOKIE}={}x", s)));
        assert!(!auth.admits("other=1"));
        // the oldest session ends beyond the limit
        for _ in 0..MAX_SESSIONS {
            auth.open(auth.token()).unwrap();
        }
        assert!(!auth.admits(&format!("{COOKIE}={s}")));
    }
}
