//! The one error type of the substitution engine. Messages keep upstream's wording so that users
//! searching for a Flux error message find ours too.

use std::fmt;

use crate::yaml::Pos;

/// What went wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// A malformed `${...}` expression.
    BadSubstitution,
    /// `${` not followed by a variable name.
    VariableName,
    /// `${name` with no closing brace (or an operator the grammar does not know, such as `-`).
    MissingClosingBrace,
    /// An operator argument that could not be read (typically the input ended inside it).
    FuncSubstitution,
    /// A default operator that could not be read.
    DefaultFunction,
    /// Expressions nested deeper than the engine accepts.
    TooDeep,
    /// Strict mode: a variable that is not set was read without a default operator.
    VariableNotSet { name: String },
    /// A variable name offered for substitution that Flux rejects.
    InvalidVariableName { name: String },
    /// The substituted text is no longer valid YAML.
    Yaml(crate::yaml::Error),
    /// The substituted text no longer holds an object (a mapping) as its first document.
    NotAnObject,
    /// The substituted document holds a value JSON cannot represent (an infinity or NaN).
    UnsupportedValue(&'static str),
}

/// A substitution error, with the position in the substituted text where one is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub kind: ErrorKind,
    /// Line and column in the text handed to `envsubst` (for a document, its YAML form), or, for
    /// an error found after substitution, in the substituted text.
    pub pos: Option<Pos>,
}

/// The pattern Flux requires variable names to match (Go RE2 syntax, ASCII classes).
pub(crate) const VAR_NAME_PATTERN: &str = "^[_[:alpha:]][_[:alpha:][:digit:]]*$";

impl Error {
    pub(crate) fn at(kind: ErrorKind, src: &str, offset: usize) -> Error {
        Error {
            kind,
            pos: Some(position(src, offset)),
        }
    }

    pub(crate) fn new(kind: ErrorKind) -> Error {
        Error { kind, pos: None }
    }
}

/// The 1-based line and column (in characters) of a byte offset.
fn position(src: &str, offset: usize) -> Pos {
    let mut end = offset.min(src.len());
    while !src.is_char_boundary(end) {
        end -= 1;
    }
    let before = src.get(..end).unwrap_or_default();
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    Pos {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        column: u32::try_from(column).unwrap_or(u32::MAX),
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ErrorKind::BadSubstitution => f.write_str("bad substitution"),
            ErrorKind::VariableName => f.write_str("unable to parse variable name"),
            ErrorKind::MissingClosingBrace => f.write_str("missing closing brace"),
            ErrorKind::FuncSubstitution => {
                f.write_str("unable to parse substitution within function")
            }
            ErrorKind::DefaultFunction => f.write_str("unable to parse default function"),
            ErrorKind::TooDeep => f.write_str("substitutions nested too deeply"),
            ErrorKind::VariableNotSet { name } => {
                write!(
                    f,
                    "variable not set (strict mode): {}",
                    crate::golang::quote(name)
                )
            }
            ErrorKind::InvalidVariableName { name } => write!(
                f,
                "'{name}' var name is invalid, must match '{VAR_NAME_PATTERN}'"
            ),
            ErrorKind::Yaml(e) => write!(f, "YAMLToJSON: {e}"),
            ErrorKind::UnsupportedValue(v) => {
                write!(f, "YAMLToJSON: json: unsupported value: {v}")
            }
            ErrorKind::NotAnObject => {
                f.write_str("UnmarshalJSON: the substituted text is not an object")
            }
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.pos {
            // A YAML error carries its own position.
            Some(pos) if !matches!(self.kind, ErrorKind::Yaml(_)) => {
                write!(f, "{pos}: {}", self.kind)
            }
            _ => write!(f, "{}", self.kind),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_are_one_based_lines_and_character_columns() {
        assert_eq!(position("ab\ncé${", 6), Pos { line: 2, column: 3 });
        // An offset inside a character counts from that character.
        assert_eq!(position("ab\ncé${", 5), Pos { line: 2, column: 2 });
        assert_eq!(position("x", 0), Pos { line: 1, column: 1 });
    }

    #[test]
    fn strict_mode_message_matches_flux() {
        let e = Error::at(
            ErrorKind::VariableNotSet {
                name: "missing".into(),
            },
            "${missing}",
            0,
        );
        assert_eq!(
            e.to_string(),
            "1:1: variable not set (strict mode): \"missing\""
        );
    }
}
