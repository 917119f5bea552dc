//! A tiny seeded PRNG (splitmix64) for shuffling servers, reconnect jitter
//! and inbox names. The driver passes the seed, so the core reads no OS
//! randomness and tests see the same sequence every run. Not for secrets.

use std::time::Duration;

pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) const fn new(seed: u64) -> Self {
        Rng(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform enough in `0..=max` (the modulo bias is irrelevant here).
    fn up_to(&mut self, max: u64) -> u64 {
        match max.checked_add(1) {
            Some(n) => self.next_u64() % n,
            None => self.next_u64(),
        }
    }

    /// A random duration in `[0, max]`.
    pub(super) fn jitter(&mut self, max: Duration) -> Duration {
        let nanos = u64::try_from(max.as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(self.up_to(nanos))
    }

    /// 22 base62 characters, as unique as the seed: the token of an inbox
    /// name (the size of a NUID).
    pub(crate) fn token(&mut self) -> String {
        const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
        let mut token = String::with_capacity(22);
        for _ in 0..2 {
            // 62^11 > 2^64: eleven digits hold a draw.
            let mut n = self.next_u64();
            for _ in 0..11 {
                token.push(char::from(DIGITS[(n % 62) as usize]));
                n /= 62;
            }
        }
        token
    }

    /// Fisher–Yates.
    pub(super) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.up_to(i as u64) as usize;
            items.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn tokens_are_nuid_sized_and_follow_the_seed() {
        let (mut a, mut b) = (Rng::new(7), Rng::new(7));
        let first = a.token();
        assert_eq!(first.len(), 22);
        assert!(first.bytes().all(|c| c.is_ascii_alphanumeric()), "{first}");
        assert_ne!(a.token(), first);
        assert_eq!(b.token(), first, "same seed, same tokens");
        assert_ne!(Rng::new(8).token(), first);
    }
}
