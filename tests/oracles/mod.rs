//! One module per oracle, mirroring `oracles/src/theorems/`.

mod racerdx;
