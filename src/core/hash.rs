//! The hasher of the core's maps: FNV-1a. Keys are the core's own ids and
//! registered method names, never attacker-chosen in bulk, and the small code
//! matters more in a wasm build than SipHash's flood resistance.

use std::hash::{BuildHasherDefault, Hasher};

#[derive(Default)]
pub struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 { 0xcbf2_9ce4_8422_2325 } else { self.0 };
        for &byte in bytes {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }
}

pub type IdHasher = BuildHasherDefault<Fnv>;
