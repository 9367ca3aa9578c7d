//! Vector clocks (docs/spec/bigfoot.md §1.6, the DJIT+ algorithm), plain and always checked.

use super::ThreadId;

/// A vector clock: one counter per thread; missing entries are 0.
///
/// Invariant: the last entry is never 0, so that derived equality is equality of the
/// functions (checked in `normalize`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VClock(Vec<u32>);

impl VClock {
    /// The entry of thread `t`.
    pub fn get(&self, t: ThreadId) -> u32 {
        self.0.get(t.0 as usize).copied().unwrap_or(0)
    }

    /// Sets the entry of thread `t`.
    pub fn set(&mut self, t: ThreadId, v: u32) {
        let i = t.0 as usize;
        if self.0.len() <= i {
            self.0.resize(i + 1, 0);
        }
        self.0[i] = v;
        self.normalize();
    }

    /// Every entry 0 again (keeping the allocation, for a caller that reuses clocks).
    pub fn clear(&mut self) {
        self.0.clear();
    }

    /// Increments the entry of thread `t`.
    pub fn tick(&mut self, t: ThreadId) {
        self.set(t, self.get(t) + 1);
    }

    /// Pointwise maximum.
    pub fn join(&mut self, other: &VClock) {
        if self.0.len() < other.0.len() {
            self.0.resize(other.0.len(), 0);
        }
        for (a, b) in self.0.iter_mut().zip(&other.0) {
            *a = (*a).max(*b);
        }
        self.normalize();
    }

    /// Pointwise `≤`.
    pub fn le(&self, other: &VClock) -> bool {
        self.0.iter().enumerate().all(|(i, a)| *a <= other.0.get(i).copied().unwrap_or(0))
    }

    fn normalize(&mut self) {
        while self.0.last() == Some(&0) {
            self.0.pop();
        }
        assert!(self.0.last().is_none_or(|x| *x != 0), "racefuzz internal bug: VClock invariant");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn join_and_order() {
        let (a, b) = (ThreadId(0), ThreadId(2));
        let mut x = VClock::default();
        x.tick(a);
        let mut y = VClock::default();
        y.tick(b);
        assert!(!x.le(&y) && !y.le(&x));
        let mut z = x.clone();
        z.join(&y);
        assert!(x.le(&z) && y.le(&z));
        assert_eq!(z.get(ThreadId(1)), 0);
        let mut w = VClock::default();
        w.set(b, 0);
        assert_eq!(w, VClock::default());
    }
}
