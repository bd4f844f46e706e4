//! Users and their tokens.
//!
//! A token reads `NAME.SECRET`: the name says whose hash to check, the secret is 32 random
//! bytes in hex. Only the secret's argon2 hash is stored. Checking a hash takes tens of
//! milliseconds on purpose, so a token checked once is remembered in memory (never on
//! disk) until its user is deleted or given a new token.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// Failed token checks per user name. After `limit` failures in a row, the name is locked
/// for `lockout` from its last failure: its tokens are not checked (so a guesser can make
/// neither progress nor the service spend argon2 time on them), and the right token waits
/// too. A success clears the count.
pub struct Throttle {
    limit: u32,
    lockout: Duration,
    failures: Mutex<HashMap<String, (u32, Instant)>>,
}

impl Throttle {
    /// A throttle locking a name for `lockout` after `limit` failures in a row (`limit` 0:
    /// never).
    pub fn new(limit: u32, lockout: Duration) -> Throttle {
        Throttle {
            limit,
            lockout,
            failures: Mutex::new(HashMap::new()),
        }
    }

    /// How long `name` stays locked, if it is.
    pub fn locked(&self, name: &str, now: Instant) -> Option<Duration> {
        if self.limit == 0 {
            return None;
        }
        let m = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        let &(count, last) = m.get(name)?;
        if count < self.limit {
            return None;
        }
        match last.checked_add(self.lockout) {
            Some(until) => (now < until).then(|| until - now),
            // beyond what the clock can count: locked for good
            None => Some(self.lockout),
        }
    }

    /// Counts a failed check of `name`'s token.
    pub fn failed(&self, name: &str, now: Instant) {
        if self.limit == 0 {
            return;
        }
        let mut m = self.failures.lock().unwrap_or_else(|p| p.into_inner());
        if m.len() > 10_000 {
            let lockout = self.lockout;
            m.retain(|_, (_, last)| now.saturating_duration_since(*last) < lockout);
        }
        let entry = m.entry(name.to_string()).or_insert((0, now));
        // a failure after a lock has passed starts a new count
        if entry.0 >= self.limit && now.saturating_duration_since(entry.1) >= self.lockout {
            entry.0 = 0;
        }
        entry.0 += 1;
        entry.1 = now;
    }

    /// Clears `name`'s failures after a successful check.
    pub fn succeeded(&self, name: &str) {
        if self.limit > 0 {
            self.failures
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn throttle_locks_after_the_limit_until_the_lockout_passes() {
        let t = Throttle::new(3, Duration::from_secs(10));
        let t0 = Instant::now();
        let at = |s: u64| t0 + Duration::from_secs(s);
        for s in 0..2 {
            t.failed("ann", at(s));
            assert_eq!(t.locked("ann", at(s)), None);
        }
        t.failed("ann", at(2));
        assert_eq!(t.locked("ann", at(2)), Some(Duration::from_secs(10)));
        assert_eq!(t.locked("ann", at(11)), Some(Duration::from_secs(1)));
        assert_eq!(t.locked("bob", at(2)), None, "names are counted apart");
        assert_eq!(t.locked("ann", at(12)), None);
        // after the lock, one failure is not enough to lock again
        t.failed("ann", at(13));
        assert_eq!(t.locked("ann", at(13)), None);
        t.succeeded("ann");
        t.failed("ann", at(14));
        t.failed("ann", at(15));
        assert_eq!(t.locked("ann", at(15)), None, "a success clears the count");
        let never = Throttle::new(0, Duration::from_secs(10));
        for s in 0..100 {
            never.failed("ann", at(s));
        }
        assert_eq!(never.locked("ann", at(100)), None);
        let long = Throttle::new(1, Duration::from_secs(u64::MAX));
        long.failed("ann", at(0));
        assert!(long.locked("ann", at(1_000_000)).is_some());
        long.failed("ann", at(1_000_000));
    }

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
