//! The envsubst grammar: a mode-driven scanner and a recursive-descent parser that turn a text into
//! literal text and `${...}` expressions.
//!
//! The scanner is deliberately shaped like the upstream one (a set of mode bits saying which tokens
//! are recognised, plus a per-call predicate saying which characters a text token may hold), because
//! the corner cases users hit (`$${x}`, `${x/\//-}`, `${x:-a${y}b}`, an unclosed `${`) all fall out
//! of that shape. Only `${...}` is an expression: a bare `$name` is literal text.

use std::sync::LazyLock;

use regex::Regex;

use super::error::{Error, ErrorKind};

/// Which tokens the scanner recognises in its current mode.
const SCAN_IDENT: u8 = 1;
const SCAN_LBRACK: u8 = 1 << 1;
const SCAN_RBRACK: u8 = 1 << 2;
const SCAN_ESCAPE: u8 = 1 << 3;

/// Which escapes are honoured when `SCAN_ESCAPE` is on: `$$` always, `\/` and `\\` only inside
/// an expression.
const ESCAPE_DOLLAR: u8 = 1;
const ESCAPE_BACKSLASH: u8 = 1 << 1;
const ESCAPE_ALL: u8 = ESCAPE_DOLLAR | ESCAPE_BACKSLASH;

/// Expressions nested deeper than this are rejected, so hostile input cannot exhaust the stack.
const MAX_DEPTH: usize = 64;

/// Decides whether a character may continue a text token. `len` is the byte length the token would
/// have with this character included, which is how operator tokens such as `:=` are bounded.
type Accept = fn(char, usize) -> bool;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Expr {
    Text(String),
    Func(Func),
}

/// One `${...}` expression: the operator as written (`""` for a plain `${name}`), the variable
/// name, the operator's arguments, and the byte offset of the `$` that opened it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Func {
    pub op: String,
    pub param: String,
    pub args: Vec<Expr>,
    pub offset: usize,
}

#[derive(Debug, PartialEq, Eq)]
enum Token {
    Eof,
    Ident(String),
    Lbrack,
    Rbrack,
    Illegal,
}

struct Scanner<'a> {
    src: &'a str,
    pos: usize,
    mode: u8,
    escapes: u8,
    accept: Accept,
    /// Scanning text outside any `${...}`, where only `$` and NUL are special.
    outside_expression: bool,
}

impl Scanner<'_> {
    /// The character at `at`. A NUL ends the input, as it does upstream (its end-of-input marker
    /// is the zero rune), so text after a NUL is dropped there and here alike.
    fn char_at(&self, at: usize) -> Option<char> {
        self.src.get(at..)?.chars().next().filter(|&c| c != '\0')
    }

    fn peek(&self) -> Option<char> {
        self.char_at(self.pos)
    }

    fn peek2(&self) -> Option<char> {
        let c = self.peek()?;
        self.char_at(self.pos + c.len_utf8())
    }

    fn at_lbrack(&self) -> bool {
        self.mode & SCAN_LBRACK != 0 && self.peek() == Some('$') && self.peek2() == Some('{')
    }

    /// If an escape starts at the current position, the character it stands for.
    fn escaped(&self) -> Option<char> {
        if self.mode & SCAN_ESCAPE == 0 {
            return None;
        }
        match (self.peek()?, self.peek2()?) {
            ('$', '$') if self.escapes & ESCAPE_DOLLAR != 0 => Some('$'),
            ('\\', c @ ('/' | '\\')) if self.escapes & ESCAPE_BACKSLASH != 0 => Some(c),
            _ => None,
        }
    }

    fn scan(&mut self) -> Token {
        let Some(c) = self.peek() else {
            return Token::Eof;
        };
        if self.at_lbrack() {
            self.pos += 2;
            return Token::Lbrack;
        }
        if self.mode & SCAN_RBRACK != 0 && c == '}' {
            self.pos += 1;
            return Token::Rbrack;
        }
        if self.mode & SCAN_IDENT != 0 {
            if let Some(text) = self.scan_text() {
                return Token::Ident(text);
            }
        }
        Token::Illegal
    }

    /// A text token: escapes contribute the character they stand for, and the token ends at the
    /// end of input, before a `${` (when recognised), or before the first character not accepted.
    fn scan_text(&mut self) -> Option<String> {
        let mut text = String::new();
        while let Some(c) = self.peek() {
            if self.outside_expression {
                // A run without `$` or NUL is taken whole: nothing in it can start an expression,
                // an escape or the end of input.
                let rest = self.src.get(self.pos..).unwrap_or_default();
                let run = rest.find(['$', '\0']).unwrap_or(rest.len());
                if run > 0 {
                    text.push_str(rest.get(..run).unwrap_or_default());
                    self.pos += run;
                    continue;
                }
            }
            // The first character was already checked against `${` by `scan`.
            if !text.is_empty() && self.at_lbrack() {
                break;
            }
            if let Some(e) = self.escaped() {
                // The escape's two characters are consumed without consulting `accept`.
                self.pos += 2;
                text.push(e);
                continue;
            }
            if !(self.accept)(c, text.len() + c.len_utf8()) {
                break;
            }
            self.pos += c.len_utf8();
            text.push(c);
        }
        if text.is_empty() {
            None
        } else {
            Some(text)
        }
    }
}

fn accept_any(_: char, _: usize) -> bool {
    true
}
/// Go's `unicode.IsLetter || unicode.IsDigit || '_'`: general categories L and Nd. Rust's
/// `is_alphabetic`/`is_numeric` are wider (combining marks, `²`, `½`), hence the class.
fn accept_ident(c: char, _: usize) -> bool {
    static IDENT: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(r"^[\p{L}\p{Nd}_]$").ok());
    if c.is_ascii() {
        return c.is_ascii_alphanumeric() || c == '_';
    }
    let mut buf = [0u8; 4];
    IDENT
        .as_ref()
        .is_some_and(|re| re.is_match(c.encode_utf8(&mut buf)))
}
fn accept_colon(c: char, _: usize) -> bool {
    c == ':'
}
fn accept_one_hash(c: char, len: usize) -> bool {
    c == '#' && len == 1
}
fn accept_not_closing(c: char, _: usize) -> bool {
    c != '}'
}
fn accept_hash_op(c: char, len: usize) -> bool {
    c == '#' && len < 3
}
fn accept_percent_op(c: char, len: usize) -> bool {
    c == '%' && len < 3
}
fn accept_default_op(c: char, len: usize) -> bool {
    (len == 1 && c == ':') || (len == 2 && matches!(c, '=' | '-' | '?' | '+'))
}
fn accept_replace_op(c: char, len: usize) -> bool {
    (len == 1 && c == '/') || (len == 2 && matches!(c, '/' | '#' | '%'))
}
fn accept_one_equal(c: char, len: usize) -> bool {
    len == 1 && c == '='
}
fn accept_one_colon(c: char, len: usize) -> bool {
    len == 1 && c == ':'
}
fn reject_colon_close(c: char, _: usize) -> bool {
    c != ':' && c != '}'
}
fn accept_slash(c: char, _: usize) -> bool {
    c == '/'
}
fn accept_not_slash(c: char, _: usize) -> bool {
    c != '/'
}
fn accept_casing_op(c: char, len: usize) -> bool {
    (c == ',' || c == '^') && len < 3
}

/// Parses a whole text into a flat list of literal text and expressions.
pub(crate) fn parse(src: &str) -> Result<Vec<Expr>, Error> {
    let mut p = Parser {
        s: Scanner {
            src,
            pos: 0,
            mode: 0,
            escapes: 0,
            accept: accept_any,
            outside_expression: true,
        },
        start: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    loop {
        p.s.accept = accept_any;
        p.s.mode = SCAN_IDENT | SCAN_LBRACK | SCAN_ESCAPE;
        p.s.escapes = ESCAPE_DOLLAR;
        p.s.outside_expression = true;
        let here = p.s.pos;
        match p.s.scan() {
            Token::Ident(text) => out.push(Expr::Text(text)),
            Token::Eof => return Ok(out),
            Token::Lbrack => out.push(Expr::Func(p.func(here)?)),
            Token::Rbrack | Token::Illegal => return Err(p.error(ErrorKind::BadSubstitution)),
        }
    }
}

struct Parser<'a> {
    s: Scanner<'a>,
    /// Offset of the outermost `${` being parsed, for error positions.
    start: usize,
    depth: usize,
}

impl Parser<'_> {
    fn error(&self, kind: ErrorKind) -> Error {
        Error::at(kind, self.s.src, self.start)
    }

    /// Parses what follows a `${` that started at `offset`.
    fn func(&mut self, offset: usize) -> Result<Func, Error> {
        if self.depth == 0 {
            self.start = offset;
        }
        if self.depth >= MAX_DEPTH {
            return Err(self.error(ErrorKind::TooDeep));
        }
        self.depth += 1;
        let result = self.func_body(offset);
        self.depth -= 1;
        result
    }

    fn func_body(&mut self, offset: usize) -> Result<Func, Error> {
        self.s.escapes = ESCAPE_ALL;
        self.s.outside_expression = false;
        if self.s.peek() == Some('#') {
            return self.length(offset);
        }
        self.s.accept = accept_ident;
        self.s.mode = SCAN_IDENT;
        let Token::Ident(param) = self.s.scan() else {
            return Err(self.error(ErrorKind::VariableName));
        };
        let mut func = Func {
            op: String::new(),
            param,
            args: Vec::new(),
            offset,
        };
        match self.s.peek() {
            Some(':') => match self.s.peek2() {
                Some('=' | '-' | '?' | '+') => self.default(&mut func)?,
                // Upstream steps back by the width of the character after the colon rather than
                // the colon's own, so input ending at the colon, or a multi-byte character after
                // it, fails there as a bad substitution; matched here so both fail alike.
                None => return Err(self.error(ErrorKind::BadSubstitution)),
                Some(c) if c.len_utf8() > 1 => return Err(self.error(ErrorKind::BadSubstitution)),
                Some(_) => self.substring(&mut func)?,
            },
            Some('=') => self.default(&mut func)?,
            Some(',' | '^') => {
                func.op = self.op(accept_casing_op)?;
                self.close()?;
            }
            Some('/') => self.replace(&mut func)?,
            Some('#') => self.remove(&mut func, accept_hash_op)?,
            Some('%') => self.remove(&mut func, accept_percent_op)?,
            _ => {
                self.s.mode = SCAN_RBRACK;
                if self.s.scan() != Token::Rbrack {
                    return Err(self.error(ErrorKind::MissingClosingBrace));
                }
            }
        }
        Ok(func)
    }

    /// Scans an operator token made of the characters `accept` allows.
    fn op(&mut self, accept: Accept) -> Result<String, Error> {
        self.s.accept = accept;
        self.s.mode = SCAN_IDENT;
        match self.s.scan() {
            Token::Ident(op) => Ok(op),
            _ => Err(self.error(ErrorKind::BadSubstitution)),
        }
    }

    /// One argument: either a nested `${...}` or a run of text accepted by `accept`.
    fn param(&mut self, accept: Accept, mode: u8) -> Result<Expr, Error> {
        self.s.accept = accept;
        self.s.mode = mode | SCAN_LBRACK;
        let here = self.s.pos;
        match self.s.scan() {
            Token::Lbrack => Ok(Expr::Func(self.func(here)?)),
            Token::Ident(text) => Ok(Expr::Text(text)),
            Token::Rbrack => Ok(Expr::Text("}".to_owned())),
            Token::Eof | Token::Illegal => Err(self.error(ErrorKind::FuncSubstitution)),
        }
    }

    fn close(&mut self) -> Result<(), Error> {
        self.s.mode = SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => Ok(()),
            _ => Err(self.error(ErrorKind::BadSubstitution)),
        }
    }

    /// `${name:offset}` and `${name:offset:length}`.
    fn substring(&mut self, func: &mut Func) -> Result<(), Error> {
        func.op = self.op(accept_one_colon)?;
        func.args.push(self.param(reject_colon_close, SCAN_IDENT)?);
        self.s.accept = accept_colon;
        self.s.mode = SCAN_IDENT | SCAN_RBRACK;
        match self.s.scan() {
            Token::Rbrack => return Ok(()),
            Token::Ident(_) => {}
            _ => return Err(self.error(ErrorKind::BadSubstitution)),
        }
        func.args.push(self.param(accept_not_closing, SCAN_IDENT)?);
        self.close()
    }

    /// `${name#pattern}`, `${name##pattern}`, `${name%pattern}`, `${name%%pattern}`.
    fn remove(&mut self, func: &mut Func, accept: Accept) -> Result<(), Error> {
        func.op = self.op(accept)?;
        func.args.push(self.param(accept_not_closing, SCAN_IDENT)?);
        self.close()
    }

    /// `${name/pattern/replacement}` and its `//`, `/#`, `/%` forms; the replacement may be omitted.
    fn replace(&mut self, func: &mut Func) -> Result<(), Error> {
        func.op = self.op(accept_replace_op)?;
        if self.s.peek() == Some('/') {
            // An empty pattern: keep the argument so the replacement stays the second one.
            func.args.push(Expr::Text(String::new()));
        } else {
            func.args
                .push(self.param(accept_not_slash, SCAN_IDENT | SCAN_ESCAPE)?);
        }
        self.op(accept_slash)?;
        if self.s.peek() == Some('}') {
            return self.close();
        }
        func.args
            .push(self.param(accept_not_closing, SCAN_IDENT | SCAN_ESCAPE)?);
        self.close()
    }

    /// `${name=word}`, `${name:=word}`, `${name:-word}`, `${name:?word}`, `${name:+word}`: the word is
    /// any mix of text and nested expressions.
    fn default(&mut self, func: &mut Func) -> Result<(), Error> {
        let accept: Accept = if self.s.peek() == Some('=') {
            accept_one_equal
        } else {
            accept_default_op
        };
        self.s.accept = accept;
        self.s.mode = SCAN_IDENT;
        func.op = match self.s.scan() {
            Token::Ident(op) => op,
            _ => return Err(self.error(ErrorKind::DefaultFunction)),
        };
        loop {
            if self.s.peek() == Some('}') {
                return self.close();
            }
            func.args.push(self.param(accept_not_closing, SCAN_IDENT)?);
        }
    }

    /// `${#name}`.
    fn length(&mut self, offset: usize) -> Result<Func, Error> {
        let op = self.op(accept_one_hash)?;
        self.s.accept = accept_ident;
        self.s.mode = SCAN_IDENT;
        let Token::Ident(param) = self.s.scan() else {
            return Err(self.error(ErrorKind::BadSubstitution));
        };
        self.close()?;
        Ok(Func {
            op,
            param,
            args: Vec::new(),
            offset,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Expr {
        Expr::Text(s.to_owned())
    }

    fn func(op: &str, param: &str, args: Vec<Expr>, offset: usize) -> Expr {
        Expr::Func(Func {
            op: op.to_owned(),
            param: param.to_owned(),
            args,
            offset,
        })
    }

    #[test]
    fn bare_dollar_names_are_text() {
        assert_eq!(parse("a $b c").unwrap(), vec![text("a $b c")]);
    }

    #[test]
    fn double_dollar_escapes_one_dollar() {
        assert_eq!(parse("$${x}").unwrap(), vec![text("${x}")]);
        assert_eq!(
            parse("$$${x}").unwrap(),
            vec![text("$"), func("", "x", vec![], 2)]
        );
    }

    #[test]
    fn nested_default_keeps_text_and_expressions_in_order() {
        assert_eq!(
            parse("${a:-p${b}s}").unwrap(),
            vec![func(
                ":-",
                "a",
                vec![text("p"), func("", "b", vec![], 6), text("s")],
                0
            )]
        );
    }

    #[test]
    fn replace_honours_backslash_escapes() {
        assert_eq!(
            parse(r"${a/\//-}").unwrap(),
            vec![func("/", "a", vec![text("/"), text("-")], 0)]
        );
    }

    #[test]
    fn malformed_expressions_are_errors() {
        assert_eq!(parse("${}").unwrap_err().kind, ErrorKind::VariableName);
        assert_eq!(
            parse("x ${a").unwrap_err().kind,
            ErrorKind::MissingClosingBrace
        );
        // The unset-default forms without a colon are not part of the grammar.
        assert_eq!(
            parse("${a-b}").unwrap_err().kind,
            ErrorKind::MissingClosingBrace
        );
        assert_eq!(
            parse("${a:-b").unwrap_err().kind,
            ErrorKind::FuncSubstitution
        );
        assert_eq!(
            parse("${a^^x}").unwrap_err().kind,
            ErrorKind::BadSubstitution
        );
    }

    #[test]
    fn deep_nesting_is_bounded() {
        let deep = "${a:-".repeat(200) + &"}".repeat(200);
        assert_eq!(parse(&deep).unwrap_err().kind, ErrorKind::TooDeep);
    }

    #[test]
    fn names_take_letters_and_decimal_digits_only() {
        assert_eq!(
            parse("${été_1}").unwrap(),
            vec![func("", "été_1", vec![], 0)]
        );
        // `²` is numeric to Rust but not a decimal digit to Go: the name ends before it.
        assert_eq!(
            parse("${a²}").unwrap_err().kind,
            ErrorKind::MissingClosingBrace
        );
    }

    #[test]
    fn nul_ends_the_input() {
        assert_eq!(parse("ab\0${x}").unwrap(), vec![text("ab")]);
    }
}
