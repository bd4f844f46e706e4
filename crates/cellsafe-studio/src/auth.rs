//! Who may use the studio: whoever holds the token of the address printed at start.
//!
//! The token is 256 random bits, made afresh each time the studio starts, and every request
//! must carry it:
//! - the page and its assets in the query (`/?token=…`, `/app.js?token=…`: the page names
//!   its assets with the token it was loaded with);
//! - every call of the page (the JSON interface and the downloads) in an
//!   `Authorization: Bearer …` header, which the page's script sets from its own address.
//!
//! There is no cookie. A cookie would be sent to every port of the host, so a page or a
//! program on another port of 127.0.0.1 could receive it, and a page there could make the
//! browser send requests with it. A header can only be set by the page's own script (a
//! cross-origin script that tries is stopped by CORS, which the studio never allows), so
//! no other page can make a request that passes.

use rand::RngCore;

/// The token.
pub struct Auth {
    token: String,
}

impl Default for Auth {
    fn default() -> Self {
        Self::new()
    }
}

impl Auth {
    /// A new random token.
    pub fn new() -> Auth {
        let mut bytes = [0u8; 32];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        Auth {
            token: bytes.iter().map(|b| format!("{b:02x}")).collect(),
        }
    }

    /// The token.
    pub fn token(&self) -> &str {
        &self.token
    }

    /// Whether `given` is the token (compared in a time that does not depend on where
    /// they differ).
    pub fn is_token(&self, given: &str) -> bool {
        let (a, b) = (given.as_bytes(), self.token.as_bytes());
        a.len() == b.len() && a.iter().zip(b).fold(0u8, |d, (x, y)| d | (x ^ y)) == 0
    }

    /// Whether the `Authorization` header `value` carries the token.
    pub fn admits_header(&self, value: &str) -> bool {
        value
            .strip_prefix("Bearer ")
            .is_some_and(|t| self.is_token(t.trim()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_token_is_admitted() {
        let auth = Auth::new();
        let other = Auth::new();
        assert_eq!(auth.token().len(), 64);
        assert_ne!(auth.token(), other.token());
        assert!(auth.is_token(auth.token()));
        assert!(!auth.is_token(""));
        assert!(!auth.is_token(&auth.token()[1..]));
        assert!(!auth.is_token(other.token()));
        assert!(auth.admits_header(&format!("Bearer {}", auth.token())));
        assert!(!auth.admits_header(auth.token()));
        assert!(!auth.admits_header(&format!("Basic {}", auth.token())));
        assert!(!auth.admits_header(&format!("Bearer {}x", auth.token())));
    }
}
