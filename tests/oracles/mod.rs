//! One module per oracle (or family), mirroring `oracles/src/theorems/`, and a toy oracle that shows
//! how one is added.

mod explorer_agree;
mod racerdx;
mod toy;
