//! A quick reader for the block-style YAML that nearly every manifest is written in: block
//! mappings and sequences, plain scalars (over several lines too), one-line quoted scalars, literal
//! and folded block scalars, flow collections (over several lines too, with aliases and keys
//! without values), anchors and aliases, comments and `---`. It works line by line on the
//! text's bytes, where saphyr reads character by character through a look-ahead buffer, so
//! taking most files off saphyr cuts much of a render's parsing cost.
//!
//! It gives up (returns `None`) at the first construct it does not handle, or at anything that
//! might be an error, and the caller then parses the text with saphyr: it never reports an error
//! of its own and never decides a question saphyr would answer differently. Its events go into
//! the same [`DocumentSink`] as saphyr's, so anchors, merges, duplicate keys and limits are
//! handled in one place. A test compares its documents with saphyr's on every YAML file under
//! `../shared`.

use std::borrow::Cow;
use std::collections::HashMap;

use saphyr_parser::{Event, ScalarStyle as SaphyrStyle};

use super::node::{Document, Pos};
use super::parse::DocumentSink;
use super::ParseOptions;

/// The documents of `text`, or `None` when saphyr must read it.
pub(super) fn parse(text: &str, options: &ParseOptions) -> Option<Vec<Document>> {
    // Tabs, carriage returns and the Unicode line and byte-order marks change how lines and
    // indentation read; such texts are left to saphyr.
    if has_tab_or_carriage_return(text.as_bytes()) {
        return None;
    }
    if !text.is_ascii() && has_unicode_break_or_bom(text.as_bytes()) {
        return None;
    }
    let mut reader = Reader {
        text,
        lines: lines(text),
        sink: DocumentSink::new(options),
        anchors: HashMap::new(),
        next_anchor_id: 1,
        pending_anchor: None,
    };
    reader.stream()?;
    Some(reader.sink.documents)
}

/// Looked for in blocks without an early exit inside each, which the compiler vectorises.
fn has_tab_or_carriage_return(bytes: &[u8]) -> bool {
    bytes.chunks(64).any(|block| {
        block
            .iter()
            .fold(false, |found, &b| found | (b == b'\t') | (b == b'\r'))
    })
}

/// True when `text` holds NEL, LS, PS or a byte-order mark, found by their UTF-8 bytes.
fn has_unicode_break_or_bom(text: &[u8]) -> bool {
    text.iter().enumerate().any(|(i, &b)| {
        let next = |k: usize| text.get(i + k).copied();
        match b {
            0xC2 => next(1) == Some(0x85),
            0xE2 => next(1) == Some(0x80) && matches!(next(2), Some(0xA8 | 0xA9)),
            0xEF => next(1) == Some(0xBB) && next(2) == Some(0xBF),
            _ => false,
        }
    })
}

struct Line<'t> {
    text: &'t str,
    /// Leading spaces.
    indent: usize,
    /// Nothing but spaces, or a comment.
    is_empty: bool,
    is_ascii: bool,
}

fn lines(text: &str) -> Vec<Line<'_>> {
    let body = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        return Vec::new();
    }
    let mut start = 0;
    memchr::memchr_iter(b'\n', body.as_bytes())
        .chain([body.len()])
        .map(|end| {
            // Both ends are at a line break or the end of the text: character boundaries.
            let line = &body[start..end];
            start = end + 1;
            let indent = line.bytes().take_while(|&b| b == b' ').count();
            let rest = &line[indent..];
            Line {
                text: line,
                indent,
                is_empty: rest.is_empty() || rest.starts_with('#'),
                is_ascii: line.is_ascii(),
            }
        })
        .collect()
}

/// What may start a plain scalar's second character when its first is `-`, `?` or `:`; anything
/// but a space or the end of the line.
fn plain_may_start(rest: &str) -> bool {
    let mut bytes = rest.bytes();
    match bytes.next() {
        None => false,
        Some(b'-' | b'?' | b':') => bytes.next().is_some_and(|b| b != b' '),
        Some(
            b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`',
        ) => false,
        Some(_) => true,
    }
}

/// The first byte at or after `i` that is not a space.
fn skip_spaces(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i) == Some(&b' ') {
        i += 1;
    }
    i
}

/// Where a comment starts in `rest` (a `#` after a space), if anywhere: the byte of that space.
fn comment_start(rest: &str) -> Option<usize> {
    let bytes = rest.as_bytes();
    let mut from = 0;
    while let Some(i) = bytes[from..].iter().position(|&b| b == b'#') {
        let at = from + i;
        if at > 0 && bytes[at - 1] == b' ' {
            return Some(at - 1);
        }
        from = at + 1;
    }
    None
}

/// True when only spaces, or a comment after at least one space, follow.
fn only_comment_after(rest: &str) -> bool {
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

fn is_document_marker(line: &str, marker: &str) -> bool {
    line.strip_prefix(marker)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(' '))
}

/// A quoted scalar found on one line: its value, style and the byte just past it.
struct InlineScalar<'t> {
    value: Cow<'t, str>,
    style: SaphyrStyle,
    end: usize,
}

struct Reader<'t, 'o> {
    text: &'t str,
    lines: Vec<Line<'t>>,
    sink: DocumentSink<'o>,
    /// Anchor ids by name, for the current document; ids are never reused, as in saphyr.
    anchors: HashMap<&'t str, usize>,
    next_anchor_id: usize,
    /// An anchor read but not yet given to its node: the id, and where it stands (the node's
    /// position, as saphyr reports it).
    pending_anchor: Option<(usize, Pos)>,
}

impl<'t> Reader<'t, '_> {
    fn pos(&self, line: usize, byte: usize) -> Pos {
        let text = self.lines[line].text;
        let column = if self.lines[line].is_ascii {
            byte
        } else {
            text[..byte].chars().count()
        };
        Pos {
            line: u32::try_from(line + 1).unwrap_or(u32::MAX),
            column: u32::try_from(column + 1).unwrap_or(u32::MAX),
        }
    }

    fn emit(&mut self, event: Event<'t>, pos: Pos, flow: bool) -> Option<()> {
        self.sink.event(event, pos, flow).ok()
    }

    /// The anchor id and position of the node about to be emitted at `pos`.
    fn take_anchor(&mut self, pos: Pos) -> (usize, Pos) {
        self.pending_anchor.take().unwrap_or((0, pos))
    }

    fn scalar(&mut self, value: Cow<'t, str>, style: SaphyrStyle, pos: Pos) -> Option<()> {
        let (anchor, pos) = self.take_anchor(pos);
        self.emit(Event::Scalar(value, style, anchor, None), pos, false)
    }

    fn start_sequence(&mut self, pos: Pos, flow: bool) -> Option<()> {
        let (anchor, pos) = self.take_anchor(pos);
        self.emit(Event::SequenceStart(anchor, None), pos, flow)
    }

    fn start_mapping(&mut self, pos: Pos, flow: bool) -> Option<()> {
        let (anchor, pos) = self.take_anchor(pos);
        self.emit(Event::MappingStart(anchor, None), pos, flow)
    }

    /// Reads the anchor (`&name`) at byte `at` of `line` and holds it for the next node; returns
    /// the byte where that node starts (or the line's end).
    fn anchor(&mut self, line: usize, at: usize) -> Option<usize> {
        let text = self.lines[line].text;
        let name_end = text[at + 1..].find(' ').map_or(text.len(), |i| at + 1 + i);
        let name = &text[at + 1..name_end];
        // A second anchor on one node is an error; saphyr says which.
        if !is_go_yaml_anchor_name(name) || self.pending_anchor.is_some() {
            return None;
        }
        let id = self.next_anchor_id;
        self.next_anchor_id += 1;
        self.anchors.insert(name, id);
        self.pending_anchor = Some((id, self.pos(line, at)));
        Some(name_end + text[name_end..].bytes().take_while(|&b| b == b' ').count())
    }

    /// An alias (`*name`) at byte `at` of `line`, alone on the rest of its line.
    fn alias(&mut self, line: usize, at: usize) -> Option<()> {
        let text = self.lines[line].text;
        let name_end = text[at + 1..].find(' ').map_or(text.len(), |i| at + 1 + i);
        if !only_comment_after(&text[name_end..])
            || !is_go_yaml_anchor_name(&text[at + 1..name_end])
        {
            return None;
        }
        let id = *self.anchors.get(&text[at + 1..name_end])?;
        let pos = self.pos(line, at);
        self.emit(Event::Alias(id), pos, false)
    }

    /// The first line at or after `from` with content.
    fn next_content(&self, from: usize) -> Option<usize> {
        (from..self.lines.len()).find(|&i| !self.lines[i].is_empty)
    }

    fn stream(&mut self) -> Option<()> {
        let mut at = 0;
        // A `---` seen whose document has not been read yet.
        let mut open_marker: Option<usize> = None;
        loop {
            let Some(line) = self.next_content(at) else {
                if let Some(marker) = open_marker {
                    self.empty_document(marker)?;
                }
                return Some(());
            };
            let text = self.lines[line].text;
            if text.starts_with('%') || is_document_marker(text, "...") {
                return None;
            }
            if is_document_marker(text, "---") {
                if !only_comment_after(&text[3..]) && !text[3..].trim().is_empty() {
                    return None;
                }
                if let Some(marker) = open_marker {
                    self.empty_document(marker)?;
                }
                open_marker = Some(line);
                at = line + 1;
                continue;
            }
            open_marker = None;
            self.anchors.clear();
            self.sink.start_document();
            let next = self.block_collection(line)?;
            // Documents end at the next `---` or the end of the text.
            if let Some(after) = self.next_content(next) {
                if !is_document_marker(self.lines[after].text, "---") {
                    return None;
                }
            }
            let end = self.pos(line, 0);
            self.sink.end_document(end);
            at = next;
        }
    }

    /// A `---` with no content before the next one or the end: a null document, placed (as
    /// saphyr places it) where the next content line starts, or at the end of the text.
    fn empty_document(&mut self, marker: usize) -> Option<()> {
        let pos = match self.next_content(marker + 1) {
            Some(next) => self.pos(next, 0),
            None if self.text.ends_with('\n') => Pos {
                line: u32::try_from(self.lines.len() + 1).unwrap_or(u32::MAX),
                column: 1,
            },
            None => {
                let last = self.lines.len() - 1;
                self.pos(last, self.lines[last].text.len())
            }
        };
        self.sink.start_document();
        self.emit(
            Event::Scalar(Cow::Borrowed(""), SaphyrStyle::Plain, 0, None),
            pos,
            false,
        )?;
        self.sink.end_document(pos);
        Some(())
    }

    /// A block mapping or sequence whose first line is `line`; returns the line after it.
    fn block_collection(&mut self, line: usize) -> Option<usize> {
        let indent = self.lines[line].indent;
        let rest = &self.lines[line].text[indent..];
        if rest == "-" || rest.starts_with("- ") {
            self.sequence(line, indent, false)
        } else if self.key_end(line, indent).is_some() {
            self.mapping(line, indent)
        } else {
            None
        }
    }

    /// A block sequence whose `-` indicators stand at column `indent`, starting on `line`.
    /// `indentless` when it is a mapping value at its key's column.
    fn sequence(&mut self, line: usize, indent: usize, indentless: bool) -> Option<usize> {
        let pos = if indentless {
            // saphyr places an indentless sequence at its first item's content.
            let text = self.lines[line].text;
            let at = indent
                + 1
                + text[indent + 1..]
                    .bytes()
                    .take_while(|&b| b == b' ')
                    .count();
            if at == text.len() || text[at..].starts_with('#') {
                return None;
            }
            self.pos(line, at)
        } else {
            self.pos(line, indent)
        };
        self.start_sequence(pos, false)?;
        let mut line = line;
        loop {
            let text = self.lines[line].text;
            let after_dash = indent + 1;
            let at = after_dash
                + text[after_dash..]
                    .bytes()
                    .take_while(|&b| b == b' ')
                    .count();
            let rest = &text[at..];
            let next = if rest.is_empty() || (rest.starts_with('#') && at > after_dash) {
                // saphyr places an empty item at the end of its line, after any comment.
                let empty_at = self.pos(line, text.len());
                self.value_below(line, indent, false, empty_at)?
            } else if rest == "-" || rest.starts_with("- ") {
                return None;
            } else if self.key_end(line, at).is_some() {
                self.mapping(line, at)?
            } else {
                self.node_value(line, at, indent, false)?
            };
            match self.following_entry(next, indent)? {
                Following::End(at) => {
                    line = at;
                    break;
                }
                Following::Entry(at) => {
                    let rest = &self.lines[at].text[indent..];
                    if rest != "-" && !rest.starts_with("- ") {
                        if indentless {
                            line = at;
                            break;
                        }
                        return None;
                    }
                    line = at;
                }
            }
        }
        let end = self.pos(line.min(self.lines.len().saturating_sub(1)), 0);
        self.emit(Event::SequenceEnd, end, false)?;
        Some(line)
    }

    /// What follows a collection entry that ended before line `next`, in a collection at column
    /// `indent`: another entry at that column, or the collection's end (a line less indented, a
    /// `---`, or the end of the text). `None` for a line indented more, which saphyr reads.
    fn following_entry(&self, next: usize, indent: usize) -> Option<Following> {
        let Some(following) = self.next_content(next) else {
            return Some(Following::End(self.lines.len()));
        };
        let line = &self.lines[following];
        if line.indent < indent || (indent == 0 && is_document_marker(line.text, "---")) {
            Some(Following::End(following))
        } else if line.indent > indent {
            None
        } else {
            Some(Following::Entry(following))
        }
    }

    /// A block mapping whose keys stand at column `indent`, the first on `line`.
    fn mapping(&mut self, line: usize, indent: usize) -> Option<usize> {
        let pos = self.pos(line, indent);
        self.start_mapping(pos, false)?;
        let mut line = line;
        loop {
            let after_colon = self.key(line, indent)?;
            let text = self.lines[line].text;
            let at = after_colon
                + text[after_colon..]
                    .bytes()
                    .take_while(|&b| b == b' ')
                    .count();
            let rest = &text[at..];
            let next = if rest.is_empty() || rest.starts_with('#') {
                let empty_at = self.pos(line, after_colon - 1);
                self.value_below(line, indent, true, empty_at)?
            } else {
                self.node_value(line, at, indent, true)?
            };
            match self.following_entry(next, indent)? {
                Following::End(at) => {
                    line = at;
                    break;
                }
                Following::Entry(at) => line = at,
            }
        }
        let end = self.pos(line.min(self.lines.len().saturating_sub(1)), 0);
        self.emit(Event::MappingEnd, end, false)?;
        Some(line)
    }

    /// Where the key at byte `at` of `line` ends: the byte of its `:`.
    fn key_end(&self, line: usize, at: usize) -> Option<usize> {
        let text = self.lines[line].text;
        let rest = &text[at..];
        let colon = match rest.as_bytes().first()? {
            b'"' | b'\'' => {
                let scalar = quoted(rest, 0)?;
                (rest.as_bytes().get(scalar.end) == Some(&b':')).then_some(scalar.end)?
            }
            _ => {
                if !plain_may_start(rest) {
                    return None;
                }
                // The first `:` followed by a space or the end of the line.
                let bytes = rest.as_bytes();
                let mut from = 0;
                let colon = loop {
                    let i = from + bytes[from..].iter().position(|&b| b == b':')?;
                    if matches!(bytes.get(i + 1), None | Some(b' ')) {
                        break i;
                    }
                    from = i + 1;
                };
                if comment_start(&rest[..colon]).is_some() {
                    return None;
                }
                colon
            }
        };
        // Implicit keys are limited to 1024 characters.
        (colon <= 1024).then_some(at + colon)
    }

    /// Emits the key at column `at` of `line`; returns the byte after its `:`.
    fn key(&mut self, line: usize, at: usize) -> Option<usize> {
        let colon = self.key_end(line, at)?;
        let text = self.lines[line].text;
        let rest = &text[at..];
        let pos = self.pos(line, at);
        match rest.as_bytes()[0] {
            b'"' | b'\'' => {
                let scalar = quoted(rest, 0)?;
                self.scalar(scalar.value, scalar.style, pos)?;
            }
            _ => {
                let value = text[at..colon].trim_end_matches(' ');
                self.scalar(Cow::Borrowed(value), SaphyrStyle::Plain, pos)?;
            }
        }
        Some(colon + 1)
    }

    /// The value of a key or sequence item whose line holds nothing after its indicator (and
    /// anchor): a collection on the lines below, or nothing, a null placed at `empty_at`.
    fn value_below(
        &mut self,
        line: usize,
        indent: usize,
        in_mapping: bool,
        empty_at: Pos,
    ) -> Option<usize> {
        if let Some(next) = self.next_content(line + 1) {
            let next_line = &self.lines[next];
            let rest = &next_line.text[next_line.indent..];
            let is_item = rest == "-" || rest.starts_with("- ");
            if next_line.indent > indent {
                if rest.starts_with(['[', '{']) {
                    return self.flow_value(next, next_line.indent, indent);
                }
                if is_item || self.key_end(next, next_line.indent).is_some() {
                    return self.block_collection(next);
                }
                return self.node_value(next, next_line.indent, indent, in_mapping);
            }
            if in_mapping && next_line.indent == indent && is_item {
                return self.sequence(next, indent, true);
            }
        }
        if self.pending_anchor.is_some() {
            return None;
        }
        self.scalar(Cow::Borrowed(""), SaphyrStyle::Plain, empty_at)?;
        Some(line + 1)
    }

    /// The value of a key or sequence item that starts at byte `at` of `line`: an alias, or a
    /// node with an optional anchor.
    fn node_value(
        &mut self,
        line: usize,
        at: usize,
        indent: usize,
        in_mapping: bool,
    ) -> Option<usize> {
        let text = self.lines[line].text;
        match text.as_bytes()[at] {
            b'*' => {
                self.alias(line, at)?;
                Some(line + 1)
            }
            b'&' => {
                let node_at = self.anchor(line, at)?;
                let rest = &text[node_at..];
                if rest.is_empty() || rest.starts_with('#') {
                    let unused = self.pos(line, at);
                    self.value_below(line, indent, in_mapping, unused)
                } else if rest.starts_with(['&', '*', '-', '?', ':']) {
                    None
                } else {
                    self.inline_value(line, node_at, indent)
                }
            }
            _ => self.inline_value(line, at, indent),
        }
    }

    /// A value that starts at byte `at` of `line`, inside a collection at column `indent`.
    fn inline_value(&mut self, line: usize, at: usize, indent: usize) -> Option<usize> {
        let text = self.lines[line].text;
        let rest = &text[at..];
        let pos = self.pos(line, at);
        match rest.as_bytes()[0] {
            b'|' | b'>' => self.block_scalar(line, at, indent),
            b'"' | b'\'' => {
                let (scalar, end_line, after) = match quoted(rest, 0) {
                    Some(scalar) => {
                        let after = &rest[scalar.end..];
                        (scalar, line, after)
                    }
                    None => {
                        let (scalar, end_line) = self.quoted_over_lines(line, at, indent)?;
                        let after = &self.lines[end_line].text[scalar.end..];
                        (scalar, end_line, after)
                    }
                };
                if !only_comment_after(after) {
                    return None;
                }
                self.scalar(scalar.value, scalar.style, pos)?;
                Some(end_line + 1)
            }
            b'[' | b'{' => self.flow_value(line, at, indent),
            _ => {
                if !plain_may_start(rest) {
                    return None;
                }
                let comment = comment_start(rest);
                let value = rest[..comment.unwrap_or(rest.len())].trim_end_matches(' ');
                // `: ` inside a one-line value is an error in block context; saphyr says so.
                if value.contains(": ") || value.ends_with(':') {
                    return None;
                }
                // A comment ends the scalar; lines indented below it are then an error.
                let (value, next) = match comment {
                    Some(_) => (Cow::Borrowed(value), line + 1),
                    None => self.plain_continued(value, line, indent)?,
                };
                self.scalar(value, SaphyrStyle::Plain, pos)?;
                Some(next)
            }
        }
    }

    /// A quoted scalar that opens at byte `at` of `line` and closes on a line below, its lines
    /// indented more than its collection's column `indent`. Its lines are folded as in a plain
    /// scalar and read as one line would be; `end` is the byte after the closing quote on the
    /// returned line. An escaped line break (a line ending in `\`) is left to saphyr.
    fn quoted_over_lines(
        &self,
        line: usize,
        at: usize,
        indent: usize,
    ) -> Option<(InlineScalar<'t>, usize)> {
        let first = self.lines[line].text[at..].trim_end_matches(' ');
        if first.ends_with('\\') {
            return None;
        }
        let mut joined = first.to_owned();
        let mut blank_lines = 0;
        for (i, l) in self.lines.iter().enumerate().skip(line + 1) {
            // Not `is_empty`: inside quotes a `#` is text.
            if l.indent == l.text.len() {
                blank_lines += 1;
                continue;
            }
            if l.indent <= indent {
                return None;
            }
            if blank_lines == 0 {
                joined.push(' ');
            } else {
                joined.extend(std::iter::repeat_n('\n', blank_lines));
            }
            blank_lines = 0;
            let start = joined.len();
            let content = &l.text[l.indent..];
            joined.push_str(content);
            if let Some(scalar) = quoted(&joined, 0) {
                let value = Cow::Owned(scalar.value.into_owned());
                let end = l.indent + scalar.end.checked_sub(start)?;
                return Some((
                    InlineScalar {
                        value,
                        style: scalar.style,
                        end,
                    },
                    i,
                ));
            }
            let content = content.trim_end_matches(' ');
            if content.ends_with('\\') {
                return None;
            }
            joined.truncate(start + content.len());
        }
        None
    }

    /// A flow collection that opens at byte `at` of `line` as the value of a node in a block
    /// collection at column `indent`; returns the line after the one it closes on.
    fn flow_value(&mut self, line: usize, at: usize, indent: usize) -> Option<usize> {
        let (end_line, end) = self.flow_node(line, at, indent)?;
        only_comment_after(&self.lines[end_line].text[end..]).then_some(end_line + 1)
    }

    /// A plain scalar whose first line `first` is on `line`, continued on the lines below that are
    /// indented more than its collection's column `indent`: each line trimmed, one line break
    /// folded to a space, and each blank line between two text lines kept as a break. Returns the
    /// value and the line after its last text line.
    fn plain_continued(
        &self,
        first: &'t str,
        line: usize,
        indent: usize,
    ) -> Option<(Cow<'t, str>, usize)> {
        let mut value: Option<String> = None;
        let mut blank_lines = 0;
        let mut next = line + 1;
        for (i, l) in self.lines.iter().enumerate().skip(line + 1) {
            if l.indent == l.text.len() {
                blank_lines += 1;
                continue;
            }
            // A comment line ends the scalar, as a less indented line does.
            if l.indent <= indent || l.is_empty {
                break;
            }
            let content = l.text[l.indent..].trim_end_matches(' ');
            // What could read as a key, a comment or a block indicator is left to saphyr.
            if content.contains(": ")
                || content.ends_with(':')
                || comment_start(content).is_some()
                || matches!(
                    content.as_bytes(),
                    [b'-' | b'?' | b':', b' ', ..] | [b'-' | b'?' | b':']
                )
            {
                return None;
            }
            let value = value.get_or_insert_with(|| first.to_owned());
            if blank_lines == 0 {
                value.push(' ');
            } else {
                value.extend(std::iter::repeat_n('\n', blank_lines));
            }
            value.push_str(content);
            blank_lines = 0;
            next = i + 1;
        }
        Some((value.map_or(Cow::Borrowed(first), Cow::Owned), next))
    }

    /// A block scalar stands where its header does, anchored or not (the position saphyr's
    /// reader is corrected to).
    fn block_scalar_event(
        &mut self,
        value: Cow<'t, str>,
        style: SaphyrStyle,
        line: usize,
        at: usize,
    ) -> Option<()> {
        let (anchor, _) = self.take_anchor(Pos::default());
        let pos = self.pos(line, at);
        self.emit(Event::Scalar(value, style, anchor, None), pos, false)
    }

    /// The next token of a flow collection at or after byte `i` of `line`, past spaces, line
    /// breaks and blank lines. `None` at a comment, or at a line not indented more than `indent`,
    /// the column of the block collection the flow node sits in (saphyr's rules for those).
    fn flow_next(&self, mut line: usize, mut i: usize, indent: usize) -> Option<(usize, usize)> {
        loop {
            let bytes = self.lines[line].text.as_bytes();
            i = skip_spaces(bytes, i);
            match bytes.get(i) {
                Some(b'#') => return None,
                Some(_) => return Some((line, i)),
                None => {
                    line += 1;
                    let next = self.lines.get(line)?;
                    let blank = next.indent == next.text.len();
                    if !blank && (next.is_empty || next.indent <= indent) {
                        return None;
                    }
                    i = next.indent;
                }
            }
        }
    }

    /// The byte at `i` of `line`.
    fn byte_at(&self, line: usize, i: usize) -> Option<u8> {
        self.lines[line].text.as_bytes().get(i).copied()
    }

    /// The entries of the flow collection opened at byte `at` of `line`, up to its `close`
    /// bracket: nodes, or `key: value` pairs. Returns the bracket's line and byte.
    fn flow_entries(
        &mut self,
        line: usize,
        at: usize,
        close: u8,
        indent: usize,
    ) -> Option<(usize, usize)> {
        let (mut line, mut i) = self.flow_next(line, at + 1, indent)?;
        if self.byte_at(line, i)? == close {
            return Some((line, i));
        }
        loop {
            (line, i) = if close == b'}' {
                self.flow_pair(line, i, indent)?
            } else {
                self.flow_node(line, i, indent)?
            };
            (line, i) = self.flow_next(line, i, indent)?;
            match self.byte_at(line, i)? {
                b',' => {
                    (line, i) = self.flow_next(line, i + 1, indent)?;
                    // A trailing comma ends the collection as its bracket does.
                    if self.byte_at(line, i)? == close {
                        return Some((line, i));
                    }
                }
                b if b == close => return Some((line, i)),
                _ => return None,
            }
        }
    }

    /// A `key: value` pair of a flow mapping, or a key alone (its value a null placed at the `,`
    /// or `}` after it), starting at byte `at` of `line`; key and value on that line. Returns
    /// the line and byte after the pair.
    fn flow_pair(&mut self, line: usize, at: usize, indent: usize) -> Option<(usize, usize)> {
        let text = self.lines[line].text;
        let bytes = text.as_bytes();
        if !matches!(bytes.get(at)?, b'"' | b'\'') && !plain_may_start(&text[at..]) {
            return None;
        }
        let (_, i) = self.flow_node(line, at, indent)?;
        if bytes.get(i) == Some(&b':') && bytes.get(i + 1) == Some(&b' ') {
            let value_at = skip_spaces(bytes, i + 1);
            if value_at == bytes.len() {
                return None;
            }
            return self.flow_node(line, value_at, indent);
        }
        let next = skip_spaces(bytes, i);
        if !matches!(bytes.get(next), Some(b',' | b'}')) {
            return None;
        }
        let pos = self.pos(line, next);
        self.scalar(Cow::Borrowed(""), SaphyrStyle::Plain, pos)?;
        Some((line, i))
    }

    /// A flow node starting at byte `at` of `line`: a `[...]` sequence or a `{...}` mapping
    /// (which may go on over the lines below), an alias, or a quoted or plain scalar on that
    /// line. Returns the line and byte after it.
    fn flow_node(&mut self, line: usize, at: usize, indent: usize) -> Option<(usize, usize)> {
        let text = self.lines[line].text;
        let bytes = text.as_bytes();
        let pos = self.pos(line, at);
        match *bytes.get(at)? {
            b'[' => {
                self.start_sequence(pos, true)?;
                let (close_line, close) = self.flow_entries(line, at, b']', indent)?;
                let end = self.pos(close_line, close);
                self.emit(Event::SequenceEnd, end, true)?;
                Some((close_line, close + 1))
            }
            b'{' => {
                self.start_mapping(pos, true)?;
                let (close_line, close) = self.flow_entries(line, at, b'}', indent)?;
                let end = self.pos(close_line, close);
                self.emit(Event::MappingEnd, end, true)?;
                Some((close_line, close + 1))
            }
            b'"' | b'\'' => {
                let scalar = quoted(text, at)?;
                self.scalar(scalar.value, scalar.style, pos)?;
                Some((line, scalar.end))
            }
            b'*' => {
                // Anchor names stop at flow indicators.
                let name_end = bytes[at + 1..]
                    .iter()
                    .position(|b| matches!(b, b' ' | b',' | b'[' | b']' | b'{' | b'}'))
                    .map_or(bytes.len(), |i| at + 1 + i);
                let id = *self.anchors.get(&text[at + 1..name_end])?;
                self.emit(Event::Alias(id), pos, false)?;
                Some((line, name_end))
            }
            _ => {
                let rest = &text[at..];
                if !plain_may_start(rest) {
                    return None;
                }
                let bytes_rest = rest.as_bytes();
                let mut end = 0;
                while end < bytes_rest.len() {
                    match bytes_rest[end] {
                        b',' | b'[' | b']' | b'{' | b'}' => break,
                        b':' if matches!(
                            bytes_rest.get(end + 1),
                            None | Some(b' ' | b',' | b'[' | b']' | b'{' | b'}')
                        ) =>
                        {
                            break
                        }
                        b'#' if end > 0 && bytes_rest[end - 1] == b' ' => return None,
                        _ => end += 1,
                    }
                }
                let value = rest[..end].trim_end_matches(' ');
                if value.is_empty() {
                    return None;
                }
                self.scalar(Cow::Borrowed(value), SaphyrStyle::Plain, pos)?;
                Some((line, at + value.len()))
            }
        }
    }

    /// A literal (`|`) or folded (`>`) scalar whose header is at byte `at` of `line`, the value of
    /// a node in a collection at column `indent`.
    fn block_scalar(&mut self, line: usize, at: usize, indent: usize) -> Option<usize> {
        let text = self.lines[line].text;
        let literal = text.as_bytes()[at] == b'|';
        let mut header_end = at + 1;
        let chomp = match text.as_bytes().get(header_end) {
            Some(b'-') => Chomp::Strip,
            Some(b'+') => Chomp::Keep,
            _ => Chomp::Clip,
        };
        if chomp != Chomp::Clip {
            header_end += 1;
        }
        let after = &text[header_end..];
        if !(after.is_empty() || (after.starts_with(' ') && only_comment_after(after))) {
            return None;
        }
        // Content lines: blank ones, and those indented more than the parent collection.
        let mut content_indent = None;
        let mut end = line + 1;
        let mut last_text = None;
        while end < self.lines.len() {
            let l = &self.lines[end];
            let blank = l.indent == l.text.len();
            if blank {
                if content_indent.is_some_and(|c| l.indent > c) {
                    return None;
                }
                end += 1;
                continue;
            }
            let Some(c) = content_indent else {
                if l.indent <= indent {
                    break;
                }
                // Leading blank lines may not be indented more than the first text line.
                if (line + 1..end).any(|i| self.lines[i].indent > l.indent) {
                    return None;
                }
                content_indent = Some(l.indent);
                last_text = Some(end);
                end += 1;
                continue;
            };
            if l.indent < c {
                break;
            }
            last_text = Some(end);
            end += 1;
        }
        let Some(last_text) = last_text else {
            if chomp == Chomp::Keep {
                return None;
            }
            let style = if literal {
                SaphyrStyle::Literal
            } else {
                SaphyrStyle::Folded
            };
            self.block_scalar_event(Cow::Borrowed(""), style, line, at)?;
            return Some(line + 1);
        };
        let content_indent = content_indent.unwrap_or(0);
        // Clipping and keeping look at the last line's break, so a stream that ends without one is
        // saphyr's; stripping drops it either way.
        if end == self.lines.len() && !self.text.ends_with('\n') && chomp != Chomp::Strip {
            return None;
        }
        let mut value = String::new();
        let mut pending_breaks = 0usize;
        let mut previous_more_indented = false;
        let mut first = true;
        for l in &self.lines[line + 1..=last_text] {
            if l.indent == l.text.len() {
                pending_breaks += 1;
                continue;
            }
            let content = &l.text[content_indent..];
            if literal {
                if !first {
                    value.push('\n');
                }
                for _ in 0..pending_breaks {
                    value.push('\n');
                }
            } else {
                let more_indented = content.starts_with(' ');
                if first {
                    for _ in 0..pending_breaks {
                        value.push('\n');
                    }
                } else if previous_more_indented || more_indented {
                    for _ in 0..=pending_breaks {
                        value.push('\n');
                    }
                } else if pending_breaks == 0 {
                    value.push(' ');
                } else {
                    for _ in 0..pending_breaks {
                        value.push('\n');
                    }
                }
                previous_more_indented = more_indented;
            }
            value.push_str(content);
            pending_breaks = 0;
            first = false;
        }
        let trailing_blank = end - last_text - 1;
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => value.push('\n'),
            Chomp::Keep => {
                for _ in 0..=trailing_blank {
                    value.push('\n');
                }
            }
        }
        let style = if literal {
            SaphyrStyle::Literal
        } else {
            SaphyrStyle::Folded
        };
        self.block_scalar_event(Cow::Owned(value), style, line, at)?;
        Some(if chomp == Chomp::Keep {
            end
        } else {
            last_text + 1
        })
    }
}

/// The line after a collection entry: the next entry's, or where the collection ended.
enum Following {
    Entry(usize),
    End(usize),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Chomp {
    Strip,
    Clip,
    Keep,
}

/// A quoted scalar that starts at byte `start` of `text` and ends on the same line.
fn quoted(text: &str, start: usize) -> Option<InlineScalar<'_>> {
    let bytes = text.as_bytes();
    let quote = *bytes.get(start)?;
    let body_start = start + 1;
    if quote == b'\'' {
        let mut value: Option<String> = None;
        let mut i = body_start;
        let mut run_start = body_start;
        loop {
            match bytes.get(i)? {
                b'\'' if bytes.get(i + 1) == Some(&b'\'') => {
                    let v = value.get_or_insert_with(String::new);
                    v.push_str(&text[run_start..=i]);
                    i += 2;
                    run_start = i;
                }
                b'\'' => {
                    let value = match value {
                        None => Cow::Borrowed(&text[body_start..i]),
                        Some(mut v) => {
                            v.push_str(&text[run_start..i]);
                            Cow::Owned(v)
                        }
                    };
                    return Some(InlineScalar {
                        value,
                        style: SaphyrStyle::SingleQuoted,
                        end: i + 1,
                    });
                }
                _ => i += 1,
            }
        }
    }
    let mut value: Option<String> = None;
    let mut i = body_start;
    let mut run_start = body_start;
    loop {
        match bytes.get(i)? {
            b'"' => {
                let value = match value {
                    None => Cow::Borrowed(&text[body_start..i]),
                    Some(mut v) => {
                        v.push_str(&text[run_start..i]);
                        Cow::Owned(v)
                    }
                };
                return Some(InlineScalar {
                    value,
                    style: SaphyrStyle::DoubleQuoted,
                    end: i + 1,
                });
            }
            b'\\' => {
                let escaped = match bytes.get(i + 1)? {
                    b'\\' => '\\',
                    b'"' => '"',
                    b'/' => '/',
                    b'n' => '\n',
                    b't' => '\t',
                    b'r' => '\r',
                    b'0' => '\0',
                    b' ' => ' ',
                    _ => return None,
                };
                let v = value.get_or_insert_with(String::new);
                v.push_str(&text[run_start..i]);
                v.push(escaped);
                i += 2;
                run_start = i;
            }
            _ => i += 1,
        }
    }
}

/// Whether go-yaml reads all of `name` as an anchor or alias name (letters, digits, `_` and `-`
/// only, its `is_alpha`); any other name is left to the full reader, which follows go-yaml there.
fn is_go_yaml_anchor_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(super::parse::is_go_yaml_anchor_byte)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_saphyr;

    fn same_as_saphyr(text: &str) -> Option<bool> {
        let options = ParseOptions::default();
        let fast = parse(text, &options)?;
        Some(parse_saphyr(text, &options).is_ok_and(|slow| slow == fast))
    }

    #[test]
    fn reads_what_saphyr_reads() {
        let cases = [
            "a: b\nc:\n  d: e\n  f:\n  - 1\n  - two\ng: []\nh: {}\n",
            "- a\n- b: c\n  d: 'e''f'\n-\n  x: y\n",
            "---\na: \"q\\\"x\" # c\n---\nb: c\n",
            "k: |\n  line\n\n   more\n  end\nl: >-\n  folded\n  text\n\n  para\n",
            "k: |+\n  kept\n\nnext: x\n",
            "# only\na: b\n\n# tail\n",
            "key: ünïcode\nother: x\n",
            "a: &x b\nc: *x\nd: &m\n  e: f\ng:\n  <<: *m\n  h: i\n",
            "a: [x, \"y\", {k: v}]\nb: { drop: [\"ALL\"] }\nc: []\n",
            "---\n---\na:\n  -\n  - b\n---\n",
            "k: >-\n  folded at the end\n  of the text",
            "k: |-\n  literal\n\n  at the end  ",
            "- |-\n  x\n",
            "a: b\n  c\n",
            "a: \"multi\n  line\"\n",
            "- \"  {{ x\n    }}  \" # c\n- \"\n\n\n  # text\\t\n\n  end\"\n- 'it''s\n   over '' lines'\n",
            "a: [b,\n  c]\n",
            "a:\n  b\n  # c\nd:\n  &x 1\ne:\n  *x\nf:\n  \"q\"\ng:\n  |\n    text\nh: &y\n  z\n",
            "args:\n  [\n    \"--auth\",\n\n    'x', y,\n  ]\nt: { name: N, id: 46, poster }\nu: {a, b: [c,], }\n",
            "h: &h x\nl: [*h, {k: *h}]\nm: [a, [b, {c: d}]]\n",
            "a: plain\n  over   \n\n\n  four {{ x\n    }} lines\nb:\n- item\n  continued\n  # note\nc: d\n",
            "- x\n\n  y\n- one # comment\n",
            // An anchored flow collection is flow style in both readers.
            "x: &mc { c: [\"m\"] }\ny: *mc\nz: &s [a] # c\n",
            "a:\n  l: &p\n    s:\n      x: &mc { c: [\"m\"] }\n  r: *p\n  s:\n    <<: *p\n    x: *mc\n",
        ];
        for case in cases {
            assert_eq!(same_as_saphyr(case), Some(true), "{case}");
        }
    }

    #[test]
    fn finds_unicode_line_breaks_and_byte_order_marks_by_their_bytes() {
        for c in ['\u{85}', '\u{2028}', '\u{2029}', '\u{feff}'] {
            assert!(has_unicode_break_or_bom(format!("a: é{c}x").as_bytes()));
        }
        assert!(!has_unicode_break_or_bom(
            "a: é ✓ \u{2027} \u{fefe}".as_bytes()
        ));
        assert_eq!(comment_start("a#b c #d"), Some(5));
        assert_eq!(comment_start("a#b"), None);
    }

    #[test]
    fn leaves_to_saphyr_what_it_does_not_read() {
        for case in [
            "a: [b\n  c]\n",
            "a: [b, # comment\n  c]\n",
            "a:\n  b: [c,\n  d]\n",
            "a: {b:\n  c}\n",
            "a: *unknown\n",
            "a: [*unknown]\n",
            "a: \"escaped \\\n  break\"\n",
            "a: \"not\nindented\"\n",
            "a: 'never\n  closed\n",
            "a: b: c\n",
            "a:\tb\n",
            "? a\n: b\n",
            "k: |2\n   x\n",
            "k: |\n  clipped at the end",
            "k: >+\n  kept at the end",
            "k: &a #\n  &a x\n",
        ] {
            let options = ParseOptions::default();
            assert!(parse(case, &options).is_none(), "{case}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// Texts made of the lines block YAML is built from (keys, items, quotes, flow brackets,
        /// anchors, aliases, comments, blank lines, at several indentations): whatever this
        /// reader accepts, it reads as saphyr does, and it never panics.
        #[test]
        fn yaml_shaped_text_reads_as_saphyr_reads_it(
            lines in proptest::collection::vec(
                (0usize..3, "(- |k: |&a |k: &a |\\*a: |\\? )?(\\[|\\{|\\]|\\}|\"|'|,|#|\\*a|x|y z|: | )*"),
                0..8,
            )
        ) {
            let text: String = lines
                .iter()
                .map(|(indent, body)| format!("{}{body}\n", "  ".repeat(*indent)))
                .collect();
            proptest::prop_assert_ne!(same_as_saphyr(&text), Some(false), "{:?}", text);
        }
    }

    /// Every YAML file under `../shared` (the corpus's repositories and charts, the conformance
    /// suites) that this reader accepts must give exactly saphyr's documents: same values, styles,
    /// tags and positions.
    #[test]
    fn matches_saphyr_on_every_yaml_file_of_the_shared_tree() {
        let Some(texts) = offlux_test_data::yaml_texts_under("", "fast reader against saphyr")
        else {
            return;
        };
        let (mut read, mut left, mut different) = (0, 0, Vec::new());
        for (path, text) in texts {
            // Chart templates are Go templates, not YAML.
            if path.components().any(|c| c.as_os_str() == "templates") {
                continue;
            }
            match same_as_saphyr(&text) {
                Some(true) => read += 1,
                Some(false) => different.push(path.display().to_string()),
                None => left += 1,
            }
        }
        assert!(
            different.is_empty(),
            "{} files read differently, first: {:?}",
            different.len(),
            &different[..different.len().min(10)]
        );
        // Most files are in the subset this reader handles; if that changes, it stops paying.
        assert!(read > 4 * left, "read {read}, left to saphyr {left}");
    }
}
