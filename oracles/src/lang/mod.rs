//! The `.race` language: AST, lexer, parser, canonical printer and dialect validators.

mod assumption;
pub mod ast;
pub mod dialect;
mod lexer;
pub mod parse;
pub mod print;

pub use assumption::{DialectError, Relax};
pub use ast::*;
pub use dialect::{validate, validate_relaxed};
pub use parse::{parse, ParseError, Pos};
pub use print::print;
