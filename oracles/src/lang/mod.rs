//! The `.race` language: AST, lexer, parser, canonical printer and dialect validators.

pub mod ast;
pub mod dialect;
pub mod labels;
mod lexer;
pub mod parse;
pub mod print;

pub use ast::*;
pub use dialect::{validate, validate_relaxed, DialectError, Relax};
pub use parse::{parse, ParseError, ParseErrorKind, Pos};
pub use print::{as_printed, print};
