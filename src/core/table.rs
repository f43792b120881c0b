//! The map behind the core's tables (pending calls, calls in flight, open
//! batches, handlers by name): entries kept sorted by key in one `Vec` and
//! found by binary search.
//!
//! Chosen over a hash map for the size of the wasm build: four hash map
//! instantiations cost several kilobytes of table code, this costs a few
//! hundred bytes each. Ids are allocated in increasing order, so an insert is
//! a push at the end; a removal leaves a hole, and the holes are swept out
//! once they outnumber the entries, so every operation stays amortised
//! O(log n) and memory follows what is live, not what went through.

use crate::prelude::*;

use core::borrow::Borrow;

pub struct Table<K, V> {
    /// Sorted by key; `None` is a removed entry not yet swept out.
    slots: Vec<(K, Option<V>)>,
    live: usize,
}

impl<K, V> Default for Table<K, V> {
    fn default() -> Self {
        Table { slots: Vec::new(), live: 0 }
    }
}

impl<K: Ord, V> Table<K, V> {
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.slots.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// Inserts or replaces; returns the value replaced.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        let at = match self.slots.last() {
            Some((last, _)) if *last < key => Err(self.slots.len()),
            None => Err(0),
            _ => self.find(&key),
        };
        match at {
            Ok(i) => {
                let old = self.slots[i].1.replace(value);
                self.live += usize::from(old.is_none());
                old
            }
            Err(i) => {
                self.slots.insert(i, (key, Some(value)));
                self.live += 1;
                None
            }
        }
    }

    /// Inserts under a key known to have no entry (an id just found free):
    /// [`Table::insert`] without the replacing it would never do.
    pub fn insert_new(&mut self, key: K, value: V) {
        let at = match self.slots.last() {
            Some((last, _)) if *last < key => Err(self.slots.len()),
            _ => self.find(&key),
        };
        match at {
            // The hole a removed entry left, not swept out yet.
            Ok(at) => self.slots[at].1 = Some(value),
            Err(at) => self.slots.insert(at, (key, Some(value))),
        }
        self.live += 1;
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.slots[self.find(key).ok()?].1.as_ref()
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        self.slots[i].1.as_mut()
    }

    /// The value under `key`, inserted by `make` if there is none.
    pub fn get_or_insert_with(&mut self, key: K, make: impl FnOnce() -> V) -> &mut V {
        let i = match self.find(&key) {
            Ok(i) => i,
            Err(i) => {
                self.slots.insert(i, (key, None));
                i
            }
        };
        let slot = &mut self.slots[i].1;
        if slot.is_none() {
            self.live += 1;
        }
        slot.get_or_insert_with(make)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.get(key).is_some()
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        let i = self.find(key).ok()?;
        let value = self.slots[i].1.take()?;
        self.live -= 1;
        self.sweep();
        Some(value)
    }

    /// Keeps the entries for which `keep` says so.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        for (key, slot) in &mut self.slots {
            if slot.as_mut().is_some_and(|value| !keep(key, value)) {
                *slot = None;
                self.live -= 1;
            }
        }
        self.sweep();
    }

    /// Removes the entries `take` picks (it may change each entry it is
    /// shown), handing each to `removed`, in key order.
    pub fn remove_where(&mut self, mut take: impl FnMut(&K, &mut V) -> bool, mut removed: impl FnMut(&K, V)) {
        for (key, slot) in &mut self.slots {
            if slot.as_mut().is_some_and(|value| take(key, value)) {
                if let Some(value) = slot.take() {
                    self.live -= 1;
                    removed(key, value);
                }
            }
        }
        self.sweep();
    }

    pub fn iter(&self) -> impl Iterator<Item = (&K, &V)> {
        self.slots.iter().filter_map(|(key, slot)| Some((key, slot.as_ref()?)))
    }

    pub fn values(&self) -> impl Iterator<Item = &V> {
        self.iter().map(|(_, value)| value)
    }

    /// Removes and returns every entry, in key order.
    pub fn drain(&mut self) -> impl Iterator<Item = (K, V)> {
        self.live = 0;
        core::mem::take(&mut self.slots).into_iter().filter_map(|(key, slot)| Some((key, slot?)))
    }

    pub fn clear(&mut self) {
        self.slots.clear();
        self.live = 0;
    }

    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Drops holes at the end at once, and all of them once they outnumber
    /// the entries (so each removal pays O(1) of sweeping, amortised).
    fn sweep(&mut self) {
        while self.slots.last().is_some_and(|(_, slot)| slot.is_none()) {
            self.slots.pop();
        }
        if self.slots.len() > 2 * self.live + 8 {
            self.slots.retain(|(_, slot)| slot.is_some());
        }
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::Table;

    #[test]
    fn behaves_as_a_map_through_holes_and_sweeps() {
        let mut table = Table::default();
        let mut model = std::collections::BTreeMap::new();
        // A mix of in-order inserts, removals from the front and middle,
        // out-of-order inserts and replacements.
        let mut seed = 7u64;
        for step in 0..20_000u64 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1_442_695_040_888_963_407);
            let key = match seed >> 62 {
                0 => step,
                1 => (seed >> 20) % (step + 1),
                _ => (seed >> 30) % 64,
            };
            if seed & 1 == 0 && !model.contains_key(&key) && seed & 2 == 0 {
                table.insert_new(key, step);
                model.insert(key, step);
            } else if seed & 1 == 0 {
                assert_eq!(table.insert(key, step), model.insert(key, step));
            } else {
                assert_eq!(table.remove(&key), model.remove(&key));
            }
            assert_eq!(table.len(), model.len());
        }
        assert!(table.iter().map(|(k, v)| (*k, *v)).eq(model.iter().map(|(k, v)| (*k, *v))));
        assert!(table.slots.len() <= 2 * table.len() + 8, "holes are swept out");
        table.retain(|key, _| key % 2 == 0);
        model.retain(|key, _| key % 2 == 0);
        let mut removed = Vec::new();
        table.remove_where(|_, value| *value % 3 == 0, |&key, value| removed.push((key, value)));
        let picked: Vec<(u64, u64)> =
            model.iter().filter(|(_, value)| *value % 3 == 0).map(|(k, v)| (*k, *v)).collect();
        model.retain(|_, value| *value % 3 != 0);
        assert_eq!(removed, picked, "removed in key order");
        assert_eq!(table.len(), model.len());
        assert!(table.drain().eq(model.into_iter()));
        assert!(table.is_empty());
    }

    #[test]
    fn string_keys_are_found_by_str() {
        let mut table: Table<String, u8> = Table::default();
        *table.get_or_insert_with("b".to_owned(), || 1) += 1;
        table.get_or_insert_with("a".to_owned(), || 5);
        assert_eq!(table.get("b"), Some(&2));
        assert_eq!(table.get("a"), Some(&5));
        assert_eq!(table.get("c"), None);
        assert_eq!(table.len(), 2);
    }
}
