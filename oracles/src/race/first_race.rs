//! The first race of a trace (docs/spec/escape_capsule.md §1.5 \[REC\], docs/design.md).
//!
//! `j* = min { j | ∃ i < j. race(i, j) }` and the partner set `R1 = { i | race(i, j*) }`.
//! The first race is located by its *second* access: defining it by the earliest first
//! access would make a correct escape filter look wrong on Fig. 4.2.

use super::hb::Race;
use crate::machine::{Addr, EventIdx};

/// The first race: the second access, its address, and every earlier partner.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct FirstRace {
    /// j*: the earliest second access of any race.
    pub second: EventIdx,
    /// The address raced on.
    pub addr: Addr,
    /// R1: every earlier access racing with j*, ascending.
    pub partners: Vec<EventIdx>,
}

/// The first race among `races` (as produced by `hb::data_races`), if any.
pub fn first_race(races: &[Race]) -> Option<FirstRace> {
    let second = races.iter().map(|r| r.second).min()?;
    let mut partners: Vec<EventIdx> = races.iter().filter(|r| r.second == second).map(|r| r.first).collect();
    partners.sort();
    partners.dedup();
    let addr = races.iter().find(|r| r.second == second).map(|r| r.addr)?;
    Some(FirstRace { second, addr, partners })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::machine::{FieldId, ObjId};

    #[test]
    fn second_access_decides() {
        let a = Addr::Field(ObjId(0), FieldId(0));
        let b = Addr::Field(ObjId(1), FieldId(0));
        // (0, 9) has the earliest first access, but (2, 5) and (3, 5) complete first.
        let races = vec![
            Race { first: EventIdx(0), second: EventIdx(9), addr: b },
            Race { first: EventIdx(3), second: EventIdx(5), addr: a },
            Race { first: EventIdx(2), second: EventIdx(5), addr: a },
        ];
        let f = first_race(&races).unwrap();
        assert_eq!(f.second, EventIdx(5));
        assert_eq!(f.partners, vec![EventIdx(2), EventIdx(3)]);
        assert_eq!(first_race(&[]), None);
    }
}
