//! Elements found again by handle, kept for the next probe of the same handle: a small
//! cache keyed by window and UI Automation runtime id, bounded (the least recently used
//! goes first). Pure: the Windows side keeps UI Automation elements in it and checks each
//! one still lives before trusting it (`win::element`).

/// Entries kept at most: an agent works on a few elements of a window at a time, and each
/// entry holds a reference into the app's provider.
pub const CAPACITY: usize = 256;

/// Values by (window, runtime id), most recently used last.
#[derive(Debug)]
pub struct Found<V> {
    entries: Vec<(u64, Vec<i32>, V)>,
    capacity: usize,
}

impl<V: Clone> Found<V> {
    /// An empty cache of at most `capacity` entries (at least one).
    pub const fn new(capacity: usize) -> Found<V> {
        Found {
            entries: Vec::new(),
            capacity: if capacity == 0 { 1 } else { capacity },
        }
    }

    fn at(&self, window: u64, id: &[i32]) -> Option<usize> {
        self.entries
            .iter()
            .position(|(w, i, _)| *w == window && i == id)
    }

    /// The value kept for this element, now the most recently used.
    pub fn get(&mut self, window: u64, id: &[i32]) -> Option<V> {
        let at = self.at(window, id)?;
        let entry = self.entries.remove(at);
        let v = entry.2.clone();
        self.entries.push(entry);
        Some(v)
    }

    /// Keeps `v` for this element; what it put out (the element's former value, or the
    /// least recently used entry when full), for the caller to drop outside any lock.
    pub fn put(&mut self, window: u64, id: &[i32], v: V) -> Option<V> {
        let out = match self.at(window, id) {
            Some(at) => Some(self.entries.remove(at).2),
            None if self.entries.len() >= self.capacity => Some(self.entries.remove(0).2),
            None => None,
        };
        self.entries.push((window, id.to_vec(), v));
        out
    }

    /// Forgets this element (found gone or changed).
    pub fn remove(&mut self, window: u64, id: &[i32]) -> Option<V> {
        let at = self.at(window, id)?;
        Some(self.entries.remove(at).2)
    }

    /// Forgets every element of a window (read again: its handles are new).
    pub fn forget_window(&mut self, window: u64) -> Vec<V> {
        let (gone, kept) = std::mem::take(&mut self.entries)
            .into_iter()
            .partition(|(w, _, _)| *w == window);
        self.entries = kept;
        gone.into_iter().map(|(_, _, v)| v).collect()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_element_is_found_by_window_and_runtime_id() {
        let mut c = Found::new(4);
        assert_eq!(c.put(0x10, &[42, 1, 2], "a"), None);
        assert_eq!(c.put(0x20, &[42, 1, 2], "b"), None);
        assert_eq!(c.get(0x10, &[42, 1, 2]), Some("a"));
        assert_eq!(c.get(0x20, &[42, 1, 2]), Some("b"));
        assert_eq!(c.get(0x10, &[42, 1]), None);
        assert_eq!(c.get(0x30, &[42, 1, 2]), None);
    }

    #[test]
    fn putting_an_element_again_replaces_it_and_gives_back_the_old_one() {
        let mut c = Found::new(4);
        c.put(1, &[7], "old");
        assert_eq!(c.put(1, &[7], "new"), Some("old"));
        assert_eq!(c.get(1, &[7]), Some("new"));
        assert_eq!(c.len(), 1);
    }

    #[test]
    fn when_full_the_least_recently_used_goes() {
        let mut c = Found::new(3);
        c.put(1, &[1], 1);
        c.put(1, &[2], 2);
        c.put(1, &[3], 3);
        // [1] used again: [2] is now the oldest.
        assert_eq!(c.get(1, &[1]), Some(1));
        assert_eq!(c.put(1, &[4], 4), Some(2));
        assert_eq!(c.len(), 3);
        assert_eq!(c.get(1, &[2]), None);
        for id in [1, 3, 4] {
            assert_eq!(c.get(1, &[id]), Some(id));
        }
        // Never more than its capacity, however many are put.
        for id in 10..100 {
            c.put(2, &[id], id);
        }
        assert_eq!(c.len(), 3);
        assert_eq!(c.get(2, &[99]), Some(99));
    }

    #[test]
    fn removing_and_forgetting_a_window() {
        let mut c = Found::new(8);
        c.put(1, &[1], "1a");
        c.put(2, &[1], "2a");
        c.put(1, &[2], "1b");
        assert_eq!(c.remove(2, &[1]), Some("2a"));
        assert_eq!(c.remove(2, &[1]), None);
        c.put(2, &[5], "2b");
        let mut gone = c.forget_window(1);
        gone.sort_unstable();
        assert_eq!(gone, vec!["1a", "1b"]);
        assert_eq!(c.len(), 1);
        assert_eq!(c.get(2, &[5]), Some("2b"));
        assert!(c.forget_window(1).is_empty());
    }

    #[test]
    fn a_cache_of_no_capacity_still_keeps_one() {
        let mut c = Found::new(0);
        c.put(1, &[1], 1);
        assert_eq!(c.put(1, &[2], 2), Some(1));
        assert_eq!(c.get(1, &[2]), Some(2));
        assert!(!c.is_empty());
    }
}
