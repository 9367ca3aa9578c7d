//! Program generators for property tests.
