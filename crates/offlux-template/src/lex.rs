//! The lexer of Go's text/template: splits a template into text and action tokens, with Go's
//! trim markers (`{{- ` and ` -}}`), comments, custom delimiters and number syntax. Tokens carry their
//! byte offset and line. A lexical error ends the token stream with an `Error` token, as in Go.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Error,
    Bool,
    Char,
    CharConstant,
    Complex,
    Assign,
    Declare,
    Eof,
    Field,
    Identifier,
    LeftDelim,
    LeftParen,
    Number,
    Pipe,
    RawString,
    RightDelim,
    RightParen,
    Space,
    String,
    Text,
    Variable,
    // Keywords.
    Block,
    Break,
    Continue,
    Dot,
    Define,
    Else,
    End,
    If,
    Nil,
    Range,
    Template,
    With,
}

impl Kind {
    fn is_keyword(self) -> bool {
        matches!(
            self,
            Kind::Block
                | Kind::Break
                | Kind::Continue
                | Kind::Dot
                | Kind::Define
                | Kind::Else
                | Kind::End
                | Kind::If
                | Kind::Nil
                | Kind::Range
                | Kind::Template
                | Kind::With
        )
    }
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub kind: Kind,
    pub val: String,
    pub pos: usize,
    pub line: usize,
}

impl std::fmt::Display for Token {
    /// Go's `item.String()`, used in "unexpected X in Y" messages.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.kind {
            Kind::Eof => f.write_str("EOF"),
            Kind::Error => f.write_str(&self.val),
            k if k.is_keyword() => write!(f, "<{}>", self.val),
            _ if self.val.chars().count() > 10 => {
                let head: String = self.val.chars().take(10).collect();
                write!(f, "{}...", super::gofmt::quote(&head))
            }
            _ => f.write_str(&super::gofmt::quote(&self.val)),
        }
    }
}

const LEFT_COMMENT: &str = "/*";
const RIGHT_COMMENT: &str = "*/";

fn is_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphabetic() || c.is_numeric()
}

fn has_left_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && b[0] == b'-' && is_space(b[1])
}

fn has_right_trim_marker(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 2 && is_space(b[0]) && b[1] == b'-'
}

struct Lexer<'a> {
    input: &'a str,
    left: &'a str,
    right: &'a str,
    pos: usize,
    start: usize,
    paren_depth: i32,
    tokens: Vec<Token>,
    // Line bookkeeping: the line at `line_pos`, advanced lazily.
    line_pos: usize,
    line: usize,
}

/// Lexes the whole input. The last token is `Eof` or `Error`.
pub(crate) fn lex(input: &str, left: &str, right: &str) -> Vec<Token> {
    let mut l = Lexer {
        input,
        left: if left.is_empty() { "{{" } else { left },
        right: if right.is_empty() { "}}" } else { right },
        pos: 0,
        start: 0,
        paren_depth: 0,
        tokens: Vec::new(),
        line_pos: 0,
        line: 1,
    };
    l.run();
    l.tokens
}

enum State {
    Text,
    InsideAction,
    Done,
}

impl<'a> Lexer<'a> {
    fn line_at(&mut self, pos: usize) -> usize {
        if pos >= self.line_pos {
            self.line += self.input[self.line_pos..pos]
                .bytes()
                .filter(|b| *b == b'\n')
                .count();
        } else {
            self.line -= self.input[pos..self.line_pos]
                .bytes()
                .filter(|b| *b == b'\n')
                .count();
        }
        self.line_pos = pos;
        self.line
    }

    fn emit(&mut self, kind: Kind) {
        let val = self.input[self.start..self.pos].to_string();
        let line = self.line_at(self.start);
        self.tokens.push(Token {
            kind,
            val,
            pos: self.start,
            line,
        });
        self.start = self.pos;
    }

    fn error(&mut self, msg: String) -> State {
        let line = self.line_at(self.start);
        self.tokens.push(Token {
            kind: Kind::Error,
            val: msg,
            pos: self.start,
            line,
        });
        State::Done
    }

    fn rest(&self) -> &'a str {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn next_char(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    fn accept(&mut self, valid: &str) -> bool {
        match self.peek() {
            Some(c) if valid.contains(c) => {
                self.pos += c.len_utf8();
                true
            }
            _ => false,
        }
    }

    fn accept_run(&mut self, valid: &str) {
        while self.accept(valid) {}
    }

    fn run(&mut self) {
        let mut state = State::Text;
        loop {
            state = match state {
                State::Text => self.lex_text(),
                State::InsideAction => self.lex_inside_action(),
                State::Done => return,
            };
        }
    }

    fn lex_text(&mut self) -> State {
        match self.rest().find(self.left) {
            Some(x) => {
                let delim_at = self.pos + x;
                let after = delim_at + self.left.len();
                let mut text_end = delim_at;
                if has_left_trim_marker(&self.input[after..]) {
                    let t =
                        self.input[self.start..delim_at].trim_end_matches([' ', '\t', '\r', '\n']);
                    text_end = self.start + t.len();
                }
                if text_end > self.start {
                    self.pos = text_end;
                    self.emit(Kind::Text);
                }
                self.pos = delim_at;
                self.start = delim_at;
                self.lex_left_delim()
            }
            None => {
                self.pos = self.input.len();
                if self.pos > self.start {
                    self.emit(Kind::Text);
                }
                self.emit(Kind::Eof);
                State::Done
            }
        }
    }

    fn lex_left_delim(&mut self) -> State {
        self.pos += self.left.len();
        let trim = has_left_trim_marker(self.rest());
        let after_marker = if trim { 2 } else { 0 };
        if self.input[self.pos + after_marker..].starts_with(LEFT_COMMENT) {
            self.pos += after_marker;
            self.start = self.pos;
            return self.lex_comment();
        }
        self.emit(Kind::LeftDelim);
        self.pos += after_marker;
        self.start = self.pos;
        self.paren_depth = 0;
        State::InsideAction
    }

    fn lex_comment(&mut self) -> State {
        self.pos += LEFT_COMMENT.len();
        let Some(x) = self.rest().find(RIGHT_COMMENT) else {
            return self.error("unclosed comment".into());
        };
        self.pos += x + RIGHT_COMMENT.len();
        let (delim, trim) = self.at_right_delim();
        if !delim {
            return self.error("comment ends before closing delimiter".into());
        }
        if trim {
            self.pos += 2;
        }
        self.pos += self.right.len();
        if trim {
            self.skip_leading_space();
        }
        self.start = self.pos;
        State::Text
    }

    fn skip_leading_space(&mut self) {
        let rest = self.rest();
        let trimmed = rest.trim_start_matches([' ', '\t', '\r', '\n']);
        self.pos += rest.len() - trimmed.len();
    }

    fn at_right_delim(&self) -> (bool, bool) {
        let rest = self.rest();
        if has_right_trim_marker(rest) && rest[2..].starts_with(self.right) {
            return (true, true);
        }
        (rest.starts_with(self.right), false)
    }

    fn lex_right_delim(&mut self) -> State {
        let (_, trim) = self.at_right_delim();
        if trim {
            self.pos += 2;
            self.start = self.pos;
        }
        self.pos += self.right.len();
        self.emit(Kind::RightDelim);
        if trim {
            self.skip_leading_space();
            self.start = self.pos;
        }
        State::Text
    }

    fn lex_inside_action(&mut self) -> State {
        let (delim, _) = self.at_right_delim();
        if delim {
            if self.paren_depth == 0 {
                return self.lex_right_delim();
            }
            return self.error("unclosed left paren".into());
        }
        let Some(r) = self.next_char() else {
            return self.error("unclosed action".into());
        };
        match r {
            ' ' | '\t' | '\r' | '\n' => {
                self.pos -= 1;
                self.lex_space()
            }
            '=' => {
                self.emit(Kind::Assign);
                State::InsideAction
            }
            ':' => {
                if self.next_char() != Some('=') {
                    return self.error("expected :=".into());
                }
                self.emit(Kind::Declare);
                State::InsideAction
            }
            '|' => {
                self.emit(Kind::Pipe);
                State::InsideAction
            }
            '"' => self.lex_quote(),
            '`' => self.lex_raw_quote(),
            '$' => self.lex_variable(),
            '\'' => self.lex_char(),
            '.' if !self.peek().is_some_and(|c| c.is_ascii_digit()) => {
                self.lex_field_or_variable(Kind::Field)
            }
            '.' | '+' | '-' | '0'..='9' => {
                self.pos -= 1;
                self.lex_number()
            }
            c if is_alnum(c) => {
                self.pos -= c.len_utf8();
                self.lex_identifier()
            }
            '(' => {
                self.paren_depth += 1;
                self.emit(Kind::LeftParen);
                State::InsideAction
            }
            ')' => {
                self.paren_depth -= 1;
                if self.paren_depth < 0 {
                    return self.error("unexpected right paren".into());
                }
                self.emit(Kind::RightParen);
                State::InsideAction
            }
            c if c.is_ascii() && !c.is_ascii_control() => {
                self.emit(Kind::Char);
                State::InsideAction
            }
            c => self.error(format!("unrecognized character in action: {}", go_u(c))),
        }
    }

    fn lex_space(&mut self) -> State {
        let mut n = 0;
        while self.rest().as_bytes().first().is_some_and(|b| is_space(*b)) {
            self.pos += 1;
            n += 1;
        }
        // A space followed by `-}}` belongs to the trim marker.
        let before = &self.input[self.pos - 1..];
        if has_right_trim_marker(before) && before[2..].starts_with(self.right) {
            self.pos -= 1;
            if n == 1 {
                return State::InsideAction;
            }
        }
        self.emit(Kind::Space);
        State::InsideAction
    }

    fn at_terminator(&self) -> bool {
        match self.peek() {
            None => true,
            Some(c) if c.is_ascii() && is_space(c as u8) => true,
            Some('.' | ',' | '|' | ':' | ')' | '(') => true,
            _ => self.rest().starts_with(self.right),
        }
    }

    fn lex_identifier(&mut self) -> State {
        while let Some(c) = self.peek() {
            if !is_alnum(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\u{FFFD}');
            return self.error(format!("bad character {}", go_u(c)));
        }
        let word = &self.input[self.start..self.pos];
        let kind = match word {
            "block" => Kind::Block,
            "break" => Kind::Break,
            "continue" => Kind::Continue,
            "define" => Kind::Define,
            "else" => Kind::Else,
            "end" => Kind::End,
            "if" => Kind::If,
            "range" => Kind::Range,
            "nil" => Kind::Nil,
            "template" => Kind::Template,
            "with" => Kind::With,
            "true" | "false" => Kind::Bool,
            _ => Kind::Identifier,
        };
        self.emit(kind);
        State::InsideAction
    }

    fn lex_variable(&mut self) -> State {
        if self.at_terminator() {
            self.emit(Kind::Variable);
            return State::InsideAction;
        }
        self.lex_field_or_variable(Kind::Variable)
    }

    fn lex_field_or_variable(&mut self, kind: Kind) -> State {
        if self.at_terminator() {
            self.emit(if kind == Kind::Variable {
                Kind::Variable
            } else {
                Kind::Dot
            });
            return State::InsideAction;
        }
        while let Some(c) = self.peek() {
            if !is_alnum(c) {
                break;
            }
            self.pos += c.len_utf8();
        }
        if !self.at_terminator() {
            let c = self.peek().unwrap_or('\u{FFFD}');
            return self.error(format!("bad character {}", go_u(c)));
        }
        self.emit(kind);
        State::InsideAction
    }

    fn lex_char(&mut self) -> State {
        loop {
            match self.next_char() {
                Some('\\') => match self.next_char() {
                    Some(c) if c != '\n' => {}
                    _ => return self.error("unterminated character constant".into()),
                },
                None | Some('\n') => return self.error("unterminated character constant".into()),
                Some('\'') => break,
                _ => {}
            }
        }
        self.emit(Kind::CharConstant);
        State::InsideAction
    }

    fn lex_quote(&mut self) -> State {
        loop {
            match self.next_char() {
                Some('\\') => match self.next_char() {
                    Some(c) if c != '\n' => {}
                    _ => return self.error("unterminated quoted string".into()),
                },
                None | Some('\n') => return self.error("unterminated quoted string".into()),
                Some('"') => break,
                _ => {}
            }
        }
        self.emit(Kind::String);
        State::InsideAction
    }

    fn lex_raw_quote(&mut self) -> State {
        loop {
            match self.next_char() {
                None => return self.error("unterminated raw quoted string".into()),
                Some('`') => break,
                _ => {}
            }
        }
        self.emit(Kind::RawString);
        State::InsideAction
    }

    fn lex_number(&mut self) -> State {
        if !self.scan_number() {
            let text = self.input[self.start..self.pos].to_string();
            return self.error(format!("bad number syntax: {}", super::gofmt::quote(&text)));
        }
        if matches!(self.peek(), Some('+' | '-')) {
            if !self.scan_number() || !self.input[..self.pos].ends_with('i') {
                let text = self.input[self.start..self.pos].to_string();
                return self.error(format!("bad number syntax: {}", super::gofmt::quote(&text)));
            }
            self.emit(Kind::Complex);
            return State::InsideAction;
        }
        self.emit(Kind::Number);
        State::InsideAction
    }

    fn scan_number(&mut self) -> bool {
        self.accept("+-");
        let mut digits = "0123456789_";
        if self.accept("0") {
            if self.accept("xX") {
                digits = "0123456789abcdefABCDEF_";
            } else if self.accept("oO") {
                digits = "01234567_";
            } else if self.accept("bB") {
                digits = "01_";
            }
        }
        self.accept_run(digits);
        if self.accept(".") {
            self.accept_run(digits);
        }
        if digits.len() == 11 && self.accept("eE") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        if digits.len() == 23 && self.accept("pP") {
            self.accept("+-");
            self.accept_run("0123456789_");
        }
        self.accept("i");
        if self.peek().is_some_and(is_alnum) {
            self.next_char();
            return false;
        }
        true
    }
}

/// Go's `%#U` of a rune: `U+0023 '#'`.
fn go_u(c: char) -> String {
    format!("U+{:04X} '{}'", c as u32, c)
}
