//! The reconnect schedule: how long to wait before each attempt to reopen a
//! connection. Pure arithmetic; the caller supplies the randomness.

/// Exponential backoff with a cap and jitter: attempt 1 waits `initial_ms`,
/// each next attempt `factor` times longer, never more than `max_ms`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Backoff {
    pub initial_ms: f64,
    pub max_ms: f64,
    pub factor: f64,
    /// The share of a delay that is random, from 0 (none) to 1: a delay `d`
    /// becomes a value in `(d × (1 − jitter), d]`, so clients that lost the
    /// same server at the same moment do not all knock again at once, and
    /// no delay ever exceeds the schedule (or the cap).
    pub jitter: f64,
    /// Attempts before giving up; `None` tries for ever.
    pub max_attempts: Option<u32>,
}

impl Default for Backoff {
    /// 1 s, 2 s, 4 s, 8 s, then 15 s between attempts, 20 % jitter, no end.
    fn default() -> Self {
        Backoff { initial_ms: 1000.0, max_ms: 15_000.0, factor: 2.0, jitter: 0.2, max_attempts: None }
    }
}

impl Backoff {
    /// The wait before `attempt` (counted from 1), given `random` in `[0, 1)`;
    /// `None` once the attempts are used up. Nonsense settings (negative,
    /// not finite) are read as the nearest sensible value, never a panic.
    pub fn delay_ms(&self, attempt: u32, random: f64) -> Option<f64> {
        if attempt == 0 || self.max_attempts.is_some_and(|most| attempt > most) {
            return None;
        }
        let sane = |value: f64, fallback: f64| if value.is_finite() && value >= 0.0 { value } else { fallback };
        let initial = sane(self.initial_ms, 0.0);
        let max = sane(self.max_ms, f64::MAX).max(initial);
        let factor = sane(self.factor, 1.0).max(1.0);
        let jitter = sane(self.jitter, 0.0).min(1.0);
        let random = sane(random, 0.0).min(1.0);
        // Grown step by step (no float library in the wasm build); the steps
        // stop at the cap, so a huge attempt number costs no more than the
        // way from `initial` up to `max`.
        let mut nominal = initial;
        for _ in 1..attempt {
            if nominal >= max || nominal == 0.0 || factor == 1.0 {
                break;
            }
            nominal *= factor;
        }
        let nominal = nominal.min(max);
        Some(nominal * (1.0 - jitter * random))
    }
}
