//! Tokens of the `.race` format. Newlines are tokens because they separate statements.

use super::parse::{ParseError, ParseErrorKind, Pos};

/// A token kind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword.
    Ident(String),
    /// A non-negative integer literal.
    Int(i64),
    /// Punctuation or an operator, spelled as in the source.
    Punct(&'static str),
    /// End of a line.
    Newline,
    /// End of input.
    Eof,
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("`{s}`"),
            Tok::Int(i) => format!("`{i}`"),
            Tok::Punct(p) => format!("`{p}`"),
            Tok::Newline => "end of line".into(),
            Tok::Eof => "end of file".into(),
        }
    }
}

/// A token with its position.
#[derive(Clone, Debug)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Where it starts.
    pub pos: Pos,
}

// Longest first, so that `..` wins over `.` and `<=` over `<`.
const PUNCTS: &[&str] = &["..", "==", "!=", "<=", ">=", "&&", "||", "<-", "{", "}", "(", ")", "[", "]", ";", ",", ".", ":", "/", "*", "+", "-", "%", "=", "<", ">", "!", "@"];

/// Splits `src` into tokens; `//` starts a comment that runs to the end of the line.
pub fn lex(src: &str) -> Result<Vec<Token>, ParseError> {
    let mut out = Vec::new();
    for (li, line) in src.lines().enumerate() {
        // OK since a line or column number only labels messages (it indexes nothing); past 2³² it saturates.
        let line_no = u32::try_from(li + 1).unwrap_or(u32::MAX);
        let bytes = line.as_bytes();
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            let pos = Pos { line: line_no, col: col_of(line, i) };
            if c == b' ' || c == b'\t' || c == b'\r' {
                i += 1;
            } else if line[i..].starts_with("//") {
                break;
            } else if c.is_ascii_alphabetic() || c == b'_' {
                let start = i;
                while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_' || bytes[i] == b'\'') {
                    i += 1;
                }
                out.push(Token { tok: Tok::Ident(line[start..i].to_string()), pos });
            } else if c.is_ascii_digit() {
                let start = i;
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                let v = line[start..i].parse::<i64>().map_err(|_| ParseError::at(src, pos, ParseErrorKind::IntegerTooLarge, "integer literal too large"))?;
                out.push(Token { tok: Tok::Int(v), pos });
            } else if let Some(p) = PUNCTS.iter().find(|p| line[i..].starts_with(**p)) {
                out.push(Token { tok: Tok::Punct(p), pos });
                i += p.len();
            } else {
                let ch = line[i..].chars().next().unwrap_or('?');
                return Err(ParseError::at(src, pos, ParseErrorKind::UnexpectedChar, &format!("unexpected character `{ch}`")));
            }
        }
        out.push(Token { tok: Tok::Newline, pos: Pos { line: line_no, col: col_of(line, line.len()) } });
    }
    // End of file sits just past the last character of the last line.
    let last_line = src.lines().last().unwrap_or("");
    // OK since a line or column number only labels messages (it indexes nothing); past 2³² it saturates.
    let last = u32::try_from(src.lines().count().max(1)).unwrap_or(u32::MAX);
    out.push(Token { tok: Tok::Eof, pos: Pos { line: last, col: col_of(last_line, last_line.len()) } });
    Ok(out)
}

fn col_of(line: &str, byte: usize) -> u32 {
    // OK since a line or column number only labels messages (it indexes nothing); past 2³² it saturates.
    u32::try_from(line[..byte].chars().count() + 1).unwrap_or(u32::MAX)
}
