//! racefuzz
