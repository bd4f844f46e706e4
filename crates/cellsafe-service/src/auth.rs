//! Users and their tokens.
//!
//! A token reads `NAME.SECRET`: the name says whose hash to check, the secret is 32 random
//! bytes in hex. Only the secret's argon2 hash is stored. Checking a hash takes tens of
//! milliseconds on purpose, so a token checked once is remembered in memory (never on
//! disk) until its user is deleted or given a new token.

use std::collections::HashMap;
use std::sync::Mutex;

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use rand::RngCore;

/// Roles: `admin` configures the center and reads the audit log; `analyst` queries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Configures the center, manages users, reads the audit log; queries like an analyst.
    Admin,
    /// Queries the tables and columns granted.
    Analyst,
}

impl Role {
    /// As stored.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Admin => "admin",
            Role::Analyst => "analyst",
        }
    }
    /// From storage.
    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "admin" => Some(Role::Admin),
            "analyst" => Some(Role::Analyst),
            _ => None,
        }
    }
}

/// A new random token for `name`: (token, hash of its secret).
pub fn new_token(name: &str) -> (String, String) {
    let mut bytes = [0u8; 32];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    let hash = hash_secret(&secret);
    (format!("{name}.{secret}"), hash)
}

/// The argon2 hash (PHC string) of `secret`.
pub fn hash_secret(secret: &str) -> String {
    let salt = SaltString::generate(&mut rand::rngs::OsRng);
    Argon2::default()
        .hash_password(secret.as_bytes(), &salt)
        .expect("argon2 with default parameters hashes any input")
        .to_string()
}

/// Whether `secret` matches the PHC string `hash`.
pub fn verify(secret: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|h| {
            Argon2::default()
                .verify_password(secret.as_bytes(), &h)
                .is_ok()
        })
        .unwrap_or(false)
}

/// A valid user name: 1 to 64 letters, digits, `-` or `_`.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Tokens already checked: token → user name.
#[derive(Default)]
pub struct Verified(Mutex<HashMap<String, String>>);

impl Verified {
    /// The user of a token checked before.
    pub fn get(&self, token: &str) -> Option<String> {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(token)
            .cloned()
    }
    /// Remembers a checked token.
    pub fn insert(&self, token: &str, user: &str) {
        let mut m = self.0.lock().unwrap_or_else(|p| p.into_inner());
        if m.len() > 10_000 {
            m.clear();
        }
        m.insert(token.to_string(), user.to_string());
    }
    /// Forgets every token of `user`.
    pub fn forget(&self, user: &str) {
        self.0
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .retain(|_, u| u != user);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_verify_against_their_hash_only() {
        let (token, hash) = new_token("ann");
        let (name, secret) = token.split_once('.').unwrap();
        assert_eq!(name, "ann");
        assert_eq!(secret.len(), 64);
        assert!(verify(secret, &hash));
        assert!(!verify("0".repeat(64).as_str(), &hash));
        assert!(!verify(secret, "not a hash"));
        assert!(!hash.contains(secret));
        assert!(valid_name("ann_2-b") && !valid_name("") && !valid_name("a.b"));
    }
}
