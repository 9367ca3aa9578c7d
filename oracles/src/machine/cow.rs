//! Copy-on-write vectors, which make a [`State`] cheap to clone: the explorers clone a state
//! for every child they try, and a step changes one thread and at most a few objects, so
//! the rest is shared between parent and child instead of copied.
//!
//! A [`CowVec`] reads like a `Vec` (`v[i]`, `v.iter()`, `v.len()`) and writes like one
//! (`v[i].x = y`, `v.push(x)`): a mutable access to an element that another clone still
//! shares copies that element first (`Rc::make_mut`), so no write is ever seen through
//! another clone. That is the whole invariant: a clone behaves as a deep copy.

use std::ops::{Index, IndexMut};
use std::rc::Rc;

/// A vector whose elements are shared between clones until written (see the module docs).
/// Its `Hash` stream is a `Vec<T>`'s (an `Rc` hashes as what it points to).
#[derive(PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CowVec<T>(Vec<Rc<T>>);

impl<T> Clone for CowVec<T> {
    /// Shares every element: one allocation and a reference count per element.
    fn clone(&self) -> Self {
        CowVec(self.0.clone())
    }
}

impl<T> Default for CowVec<T> {
    fn default() -> Self {
        CowVec(Vec::new())
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for CowVec<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> From<Vec<T>> for CowVec<T> {
    fn from(v: Vec<T>) -> Self {
        CowVec(v.into_iter().map(Rc::new).collect())
    }
}

impl<T> FromIterator<T> for CowVec<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        CowVec(iter.into_iter().map(Rc::new).collect())
    }
}

impl<T: Clone> CowVec<T> {
    /// The elements, each made unique (copied if shared) so that it can be written.
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut T> {
        self.0.iter_mut().map(Rc::make_mut)
    }

    /// The element at `i`, made unique so that it can be written.
    pub fn get_mut(&mut self, i: usize) -> Option<&mut T> {
        self.0.get_mut(i).map(Rc::make_mut)
    }
}

impl<T> CowVec<T> {
    /// The number of elements.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is no element.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The elements, in order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator {
        self.0.iter().map(|e| &**e)
    }

    /// The element at `i`, if any.
    pub fn get(&self, i: usize) -> Option<&T> {
        self.0.get(i).map(|e| &**e)
    }

    /// The first element, if any.
    pub fn first(&self) -> Option<&T> {
        self.get(0)
    }

    /// The last element, if any.
    pub fn last(&self) -> Option<&T> {
        self.0.last().map(|e| &**e)
    }

    /// Replaces the element at `i` (without copying the old one, shared or not).
    pub fn set(&mut self, i: usize, e: T) {
        self.0[i] = Rc::new(e);
    }

    /// Appends an element.
    pub fn push(&mut self, e: T) {
        self.0.push(Rc::new(e));
    }

    /// Removes every element.
    pub fn clear(&mut self) {
        self.0.clear();
    }
}

impl<T> Index<usize> for CowVec<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.0[i]
    }
}

impl<T: Clone> IndexMut<usize> for CowVec<T> {
    /// Copies the element first if another clone shares it.
    fn index_mut(&mut self, i: usize) -> &mut T {
        Rc::make_mut(&mut self.0[i])
    }
}

impl<'a, T> IntoIterator for &'a CowVec<T> {
    type Item = &'a T;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, Rc<T>>, fn(&'a Rc<T>) -> &'a T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|e| &**e)
    }
}

impl<'a, T: Clone> IntoIterator for &'a mut CowVec<T> {
    type Item = &'a mut T;
    type IntoIter = std::iter::Map<std::slice::IterMut<'a, Rc<T>>, fn(&'a mut Rc<T>) -> &'a mut T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter_mut().map(Rc::make_mut)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_write_through_one_clone_is_not_seen_through_another() {
        let mut a: CowVec<Vec<u8>> = vec![vec![1], vec![2]].into();
        let b = a.clone();
        a[0].push(9);
        a.push(vec![3]);
        for x in &mut a {
            x.push(0);
        }
        assert_eq!(b.iter().cloned().collect::<Vec<_>>(), [vec![1], vec![2]]);
        assert_eq!(a.iter().cloned().collect::<Vec<_>>(), [vec![1, 9, 0], vec![2, 0], vec![3, 0]]);
        // Until a write, the clones share their elements.
        let c = b.clone();
        assert!(Rc::ptr_eq(&b.0[1], &c.0[1]));
        assert_eq!((c.len(), c.first(), c.last(), c.get(2)), (2, Some(&vec![1]), Some(&vec![2]), None));
    }
}
