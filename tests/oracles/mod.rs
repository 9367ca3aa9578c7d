//! One module per oracle, mirroring `oracles/src/theorems/`, and a toy oracle that shows
//! how one is added.

mod racerdx;
mod toy;
