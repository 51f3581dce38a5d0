//! Builds the ordered tree from `saphyr-parser` events: documents, positions, anchors and aliases,
//! `<<` merge keys, duplicate-key detection and the limits against hostile input.
//!
//! Not for: deciding what a scalar means (that is `resolve`) or printing (that is `emit`).

use std::collections::HashMap;

use compact_str::CompactString;

use saphyr_parser::{Event, Parser, ScalarStyle as SaphyrStyle, ScanError, Span, Tag};

use super::node::{
    CollectionStyle, Document, Entry, Mapping, Node, Pos, Scalar, ScalarStyle, Sequence,
};
use super::{Error, ParseOptions};

/// A finished anchored node, kept so aliases can copy it without walking it again.
struct Anchored {
    node: Node,
    /// Nodes in the subtree, charged against `max_expanded_nodes` on every use.
    size: usize,
    /// Nesting depth of the subtree (a scalar is 1), checked against `max_depth` on every use.
    depth: usize,
}

/// A collection under construction. Its children wait on the builder's scratch stacks from
/// `start` on, and move into a vector of exactly their number when it ends: growing each
/// collection's own vector by doubling left a third of the tree's memory unused.
enum Frame {
    Seq {
        seq: Sequence,
        start: usize,
        anchor: usize,
        size: usize,
        depth: usize,
    },
    Map {
        map: Mapping,
        start: usize,
        anchor: usize,
        size: usize,
        depth: usize,
        /// The key read but not yet paired with a value.
        pending_key: Option<Scalar>,
        /// Finds earlier explicit keys, for the duplicate-key error.
        keys: KeyIndex,
        /// `<<` values, applied when the mapping ends so that explicit keys win wherever they are;
        /// each with the number of explicit entries before it.
        merges: Vec<(usize, Node)>,
    },
}

/// Mappings with at least this many entries get a hash index for the duplicate-key check; below
/// it, scanning the entries is faster than hashing every key.
const INDEXED_MAPPING_LEN: usize = 16;

/// Looks up a key among the explicit entries of a mapping under construction.
#[derive(Default)]
struct KeyIndex {
    /// Entry index by key text, built once the mapping reaches [`INDEXED_MAPPING_LEN`] entries.
    by_key: Option<HashMap<CompactString, usize>>,
}

impl KeyIndex {
    /// The entry of `entries` whose key is `key`.
    fn find<'e>(&mut self, entries: &'e [Entry], key: &str) -> Option<&'e Entry> {
        if entries.len() < INDEXED_MAPPING_LEN {
            return entries.iter().find(|e| e.key.value == key);
        }
        let by_key = self.by_key.get_or_insert_with(|| {
            entries
                .iter()
                .enumerate()
                .map(|(i, e)| (e.key.value.clone(), i))
                .collect()
        });
        by_key.get(key).and_then(|&i| entries.get(i))
    }

    /// Drops what is known, after an entry was removed.
    fn forget(&mut self) {
        self.by_key = None;
    }

    /// Notes that the entry at `index` has key `key`, after [`KeyIndex::find`] found none.
    fn record(&mut self, key: &str, index: usize) {
        if let Some(by_key) = &mut self.by_key {
            by_key.insert(key.into(), index);
        }
    }
}

struct Builder<'o> {
    options: &'o ParseOptions,
    stack: Vec<Frame>,
    /// The finished children of the open sequences and mappings, innermost last.
    items: Vec<Node>,
    entries: Vec<Entry>,
    anchors: HashMap<usize, Anchored>,
    /// Anchor ids whose node is still being built: an alias to one of them is recursive.
    open_anchors: Vec<usize>,
    /// Nodes produced in the current document, aliases counted at their expanded size.
    produced: usize,
    root: Option<(Node, Pos)>,
}

/// How many closing brackets or alias names [`parse_saphyr`] will fix before giving up.
const MAX_TEXT_FIXES: usize = 64;

/// `yaml::parse_stream` by saphyr alone.
pub(super) fn parse_saphyr(text: &str, options: &ParseOptions) -> Result<Vec<Document>, Error> {
    let mut first_error = match parse_events(text, options) {
        Ok(docs) => return Ok(docs),
        Err(e) => e,
    };
    // go-yaml ignores indentation inside flow collections, and real repositories close a
    // multi-line `[ ... ]` at the key's column. saphyr rejects that, so such a closing bracket is
    // moved right and the text parsed again. Only a line starting with `]`/`}` is touched: that is
    // never valid block content, so no invalid document becomes valid this way.
    //
    // go-yaml also ends an alias name at the first character that is not a letter, digit, `_` or
    // `-` (`yaml_parser_scan_anchor` in go-yaml v3's scannerc.go), so `*app: value` is the alias
    // `app` used as a key; saphyr reads the name `app:` and fails on the unknown anchor. Such an
    // alias gets a space after its go-yaml name and the text is parsed again.
    let mut fixed = text.to_string();
    for _ in 0..MAX_TEXT_FIXES {
        let next = match first_error.message.as_str() {
            "invalid indentation" => indent_closing_bracket(&fixed, first_error.pos),
            UNKNOWN_ANCHOR => end_name_as_go_yaml(&fixed, first_error.pos, '*'),
            ANCHOR_NAME_ENDS_EARLY => end_name_as_go_yaml(&fixed, first_error.pos, '&'),
            _ => None,
        };
        let Some(next) = next else {
            break;
        };
        fixed = next;
        match parse_events(&fixed, options) {
            Ok(docs) => return Ok(docs),
            Err(e) if e.pos.line >= first_error.pos.line => first_error = e,
            Err(_) => break,
        }
    }
    // Report the error of the text as written, unless it only says that go-yaml reads an anchor
    // name differently: the error of the text read as go-yaml reads it is then the real one.
    match parse_events(text, options) {
        Err(e) if e.message == ANCHOR_NAME_ENDS_EARLY => {
            Err(if first_error.message == ANCHOR_NAME_ENDS_EARLY {
                error(e.pos, "an anchor name ends at this indicator in go-yaml, and what follows it is not valid here")
            } else {
                first_error
            })
        }
        other => other,
    }
}

/// saphyr's message for an alias whose name no anchor before it has.
const UNKNOWN_ANCHOR: &str = "while parsing node, found unknown anchor";

/// The message of an anchor whose name saphyr reads further than go-yaml, up to an indicator
/// after which go-yaml goes on (`&app: …`): the text is parsed again with the name ended there.
const ANCHOR_NAME_ENDS_EARLY: &str = "go-yaml ends this anchor's name earlier";

/// go-yaml's `is_alpha` (`yaml_parser_scan_anchor` in go-yaml v3's scannerc.go): the only
/// characters of an anchor or alias name.
pub(super) fn is_go_yaml_anchor_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-')
}

/// What go-yaml makes of the anchor name that saphyr read as `name`.
enum AnchorName {
    /// The same name.
    Same,
    /// A shorter name followed by an indicator go-yaml accepts after one (`:`, `?`, `%`, `@`,
    /// a backquote).
    EndsEarly,
    /// No name go-yaml accepts: its scanner fails at this many bytes into the name.
    Refused(usize),
}

fn go_yaml_anchor_name(name: &str) -> AnchorName {
    let len = name
        .bytes()
        .take_while(|&b| is_go_yaml_anchor_byte(b))
        .count();
    match name.as_bytes().get(len) {
        None => AnchorName::Same,
        Some(b':' | b'?' | b'%' | b'@' | b'`') if len > 0 => AnchorName::EndsEarly,
        Some(_) => AnchorName::Refused(len),
    }
}

/// Inserts a space after the name go-yaml reads in the alias (`*`) or anchor (`&`) at `pos`
/// (1-based line and character column), when go-yaml ends that name at an indicator (`:`, `?`,
/// `%`, `@` or a backquote) that saphyr takes as part of it; `None` when go-yaml reads the same
/// name.
fn end_name_as_go_yaml(text: &str, pos: Pos, indicator: char) -> Option<String> {
    let line_index = usize::try_from(pos.line).ok()?.checked_sub(1)?;
    let column = usize::try_from(pos.column).ok()?.checked_sub(1)?;
    let mut offset = 0usize;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == line_index {
            let (star, _) = line.char_indices().nth(column)?;
            let rest = line.get(star..)?.strip_prefix(indicator)?;
            let name_len = rest
                .bytes()
                .take_while(|&b| is_go_yaml_anchor_byte(b))
                .count();
            let after = rest.as_bytes().get(name_len)?;
            if name_len == 0 || !matches!(after, b':' | b'?' | b'%' | b'@' | b'`') {
                return None;
            }
            let at = offset + star + 1 + name_len;
            let mut out = String::with_capacity(text.len() + 1);
            out.push_str(text.get(..at)?);
            out.push(' ');
            out.push_str(text.get(at..)?);
            return Some(out);
        }
        offset += line.len();
    }
    None
}

/// Inserts a space before a `]` or `}` that starts line `pos.line` at `pos.column`.
fn indent_closing_bracket(text: &str, pos: Pos) -> Option<String> {
    let line_index = usize::try_from(pos.line).ok()?.checked_sub(1)?;
    let mut offset = 0usize;
    for (i, line) in text.split_inclusive('\n').enumerate() {
        if i == line_index {
            let trimmed = line.trim_start_matches(' ');
            if !(trimmed.starts_with(']') || trimmed.starts_with('}')) {
                return None;
            }
            let at = offset + (line.len() - trimmed.len());
            let mut out = String::with_capacity(text.len() + 1);
            out.push_str(text.get(..at)?);
            out.push(' ');
            out.push_str(text.get(at..)?);
            return Some(out);
        }
        offset += line.len();
    }
    None
}

/// A block scalar that runs to the end of a stream with no final line break has no final line
/// break to keep: saphyr adds one, libyaml (Go's YAML, PyYAML) does not. `total_chars` is the
/// length of `text` in characters, as spans count.
pub(crate) fn drop_break_added_at_end(
    text: &str,
    total_chars: usize,
    span: &Span,
    value: &mut std::borrow::Cow<'_, str>,
) {
    let at_end = span.end.index() >= total_chars && !text.ends_with(['\n', '\r']);
    if at_end && value.ends_with('\n') {
        value.to_mut().pop();
    }
}

fn parse_events(text: &str, options: &ParseOptions) -> Result<Vec<Document>, Error> {
    let mut parser = Parser::new_from_str(text);
    let mut chars = CharCursor::new(text);
    // Only block scalars need it, and counting is a pass over the whole text.
    let mut total_chars = None;
    let mut sink = DocumentSink::new(options);
    // Where the last collection judged to be in flow style started.
    let mut last_flow_start: Option<usize> = None;
    while let Some(next) = parser.next_event() {
        let (mut event, span) = next.map_err(scan_error)?;
        let mut pos = pos_of(&span);
        if let Event::Scalar(value, SaphyrStyle::Literal | SaphyrStyle::Folded, _, _) = &mut event {
            let total_chars = *total_chars.get_or_insert_with(|| text.chars().count());
            drop_break_added_at_end(text, total_chars, &span, value);
            // saphyr's span of a block scalar starts at its content; point at the `|`/`>` header.
            if let Some(header) = chars.block_header_before(span.start.index(), pos) {
                pos = header;
            }
        }
        let anchored = matches!(
            event,
            Event::Scalar(_, _, 1.., _)
                | Event::SequenceStart(1.., _)
                | Event::MappingStart(1.., _)
        );
        if anchored {
            check_anchor_name(&mut chars, span.start.index(), pos_of(&span))?;
        }
        match event {
            Event::StreamStart | Event::StreamEnd | Event::Nothing => {}
            Event::DocumentStart(_) => sink.start_document(),
            Event::DocumentEnd => sink.end_document(pos),
            other => {
                let is_start = matches!(other, Event::SequenceStart(..) | Event::MappingStart(..));
                // saphyr's span of an anchored or tagged node starts at its first property;
                // its style shows where the node itself starts.
                let start = if is_start {
                    chars.after_properties(span.start.index())
                } else {
                    span.start.index()
                };
                if is_start && last_flow_start == Some(start) {
                    // An indentless block sequence (`key:` then `- [a]` at the key's column)
                    // starts where its first item does; that item's start gives it away.
                    sink.innermost_to_block();
                }
                let flow = match other {
                    Event::SequenceStart(..) => chars.char_at(start) == Some('['),
                    Event::MappingStart(..) => chars.char_at(start) == Some('{'),
                    _ => false,
                };
                last_flow_start = flow.then_some(start);
                sink.event(other, pos, flow)?;
            }
        }
    }
    Ok(sink.documents)
}

/// Holds an anchored node's anchor name, among the properties starting at character `index`
/// (at `pos`), to go-yaml's rule: a name go-yaml refuses is an error at the character where its
/// scanner stops, one it ends earlier asks for the text to be read again.
fn check_anchor_name(chars: &mut CharCursor<'_>, index: usize, pos: Pos) -> Result<(), Error> {
    let Some((column_offset, name)) = chars.anchor_name(index) else {
        return Ok(());
    };
    let at = Pos {
        line: pos.line,
        column: pos
            .column
            .saturating_add(u32::try_from(column_offset).unwrap_or(u32::MAX)),
    };
    match go_yaml_anchor_name(name) {
        AnchorName::Same => Ok(()),
        AnchorName::EndsEarly => Err(error(at, ANCHOR_NAME_ENDS_EARLY)),
        AnchorName::Refused(len) => {
            let bad = name
                .get(len..)
                .and_then(|r| r.chars().next())
                .unwrap_or(' ');
            let column = at
                .column
                .saturating_add(1 + u32::try_from(name[..len].chars().count()).unwrap_or(0));
            Err(error(
                Pos { line: at.line, column },
                format!(
                    "while scanning an anchor: did not find expected alphabetic or numeric character (found {bad:?} in the name {name:?}; go-yaml, as kubectl and Helm read YAML, allows only letters, digits, '_' and '-')"
                ),
            ))
        }
    }
}

/// Turns node events, whichever reader produced them, into documents.
pub(super) struct DocumentSink<'o> {
    options: &'o ParseOptions,
    builder: Option<Builder<'o>>,
    pub(super) documents: Vec<Document>,
}

impl<'o> DocumentSink<'o> {
    pub(super) fn new(options: &'o ParseOptions) -> Self {
        DocumentSink {
            options,
            builder: None,
            documents: Vec::new(),
        }
    }

    pub(super) fn start_document(&mut self) {
        self.builder = Some(Builder::new(self.options));
    }

    /// Ends the open document; one without content is a null document at `pos`.
    pub(super) fn end_document(&mut self, pos: Pos) {
        if let Some(done) = self.builder.take() {
            let (root, pos) = done.root.unwrap_or((Node::null(), pos));
            self.documents.push(Document::new(root, pos));
        }
    }

    /// A node event (scalar, alias, collection start or end) of the open document.
    pub(super) fn event(&mut self, event: Event<'_>, pos: Pos, flow: bool) -> Result<(), Error> {
        let Some(builder) = self.builder.as_mut() else {
            return Err(error(pos, "content outside of a document"));
        };
        builder.event(event, pos, flow)
    }

    fn innermost_to_block(&mut self) {
        if let Some(builder) = self.builder.as_mut() {
            builder.innermost_to_block();
        }
    }
}

/// Maps saphyr's character indexes to byte offsets. Up to the first non-ASCII byte the two are
/// equal; beyond it a cursor walks forward, as events normally arrive in source order.
struct CharCursor<'t> {
    text: &'t str,
    /// Length of the ASCII-only start of `text`.
    ascii_len: usize,
    char_index: usize,
    byte_index: usize,
}

impl<'t> CharCursor<'t> {
    fn new(text: &'t str) -> Self {
        // `str::is_ascii` is much faster than a byte-wise search, and most texts pass it.
        let ascii_len = if text.is_ascii() {
            text.len()
        } else {
            text.bytes()
                .position(|b| !b.is_ascii())
                .unwrap_or(text.len())
        };
        CharCursor {
            text,
            ascii_len,
            char_index: ascii_len,
            byte_index: ascii_len,
        }
    }

    /// The byte offset of the character at character index `index`, if there is one.
    fn byte_offset(&mut self, index: usize) -> Option<usize> {
        if index < self.ascii_len {
            return Some(index);
        }
        if index < self.char_index {
            self.char_index = self.ascii_len;
            self.byte_index = self.ascii_len;
        }
        let rest = self.text.get(self.byte_index..)?;
        let (offset, _) = rest.char_indices().nth(index - self.char_index)?;
        self.char_index = index;
        self.byte_index += offset;
        Some(self.byte_index)
    }

    /// The character index of the first character at or after character `index` that is not
    /// part of a node's properties (`&anchor`, `!tag`), nor the spaces, comments and line breaks
    /// after them.
    fn after_properties(&mut self, index: usize) -> usize {
        let Some(at) = self.byte_offset(index) else {
            return index;
        };
        let Some(rest) = self.text.get(at..) else {
            return index;
        };
        let mut chars = rest.chars().peekable();
        let mut skipped = 0usize;
        while let Some(&c) = chars.peek() {
            match c {
                '&' | '!' => {
                    while chars.next_if(|c| !c.is_whitespace()).is_some() {
                        skipped += 1;
                    }
                }
                ' ' | '\t' | '\n' | '\r' => {
                    chars.next();
                    skipped += 1;
                }
                '#' => {
                    while chars.next_if(|&c| c != '\n').is_some() {
                        skipped += 1;
                    }
                }
                _ => break,
            }
        }
        index + skipped
    }

    /// The anchor name among the node properties (`!tag &name`, `&name !tag`) starting at
    /// character `index` as saphyr reads it (up to a blank or a flow indicator), and how many
    /// characters after `index` its `&` is; `None` when the properties hold no anchor on that line.
    fn anchor_name(&mut self, index: usize) -> Option<(usize, &'t str)> {
        let at = self.byte_offset(index)?;
        let text: &'t str = self.text;
        let rest = text.get(at..)?;
        let mut offset_chars = 0usize;
        let mut cursor = rest;
        loop {
            if let Some(after) = cursor.strip_prefix('&') {
                let end = after
                    .find(|c: char| c.is_whitespace() || matches!(c, ',' | '[' | ']' | '{' | '}'))
                    .unwrap_or(after.len());
                return Some((offset_chars, &after[..end]));
            }
            if cursor.starts_with('!') {
                let end = cursor.find(char::is_whitespace)?;
                offset_chars += cursor[..end].chars().count();
                cursor = &cursor[end..];
                let blanks = cursor.len() - cursor.trim_start_matches([' ', '\t']).len();
                offset_chars += blanks;
                cursor = &cursor[blanks..];
                continue;
            }
            return None;
        }
    }

    fn char_at(&mut self, index: usize) -> Option<char> {
        let at = self.byte_offset(index)?;
        self.text.get(at..)?.chars().next()
    }

    /// The position of the block scalar header (`|`, `>-`, `|2` ...) that precedes the content
    /// starting at character `index` (at `pos`).
    fn block_header_before(&mut self, index: usize, pos: Pos) -> Option<Pos> {
        let at = self.byte_offset(index)?;
        let before = self.text.get(..at)?;
        // The header is on the last line before the content's line that is not blank.
        let mut line = pos.line;
        let mut lines = before.rsplit('\n');
        // The content line's own indentation comes first.
        lines.next()?;
        for text in lines {
            line = line.checked_sub(1)?;
            let text = text.strip_suffix('\r').unwrap_or(text);
            if text.trim().is_empty() {
                continue;
            }
            let column = header_column(text)?;
            return Some(Pos { line, column });
        }
        None
    }
}

/// The 1-based column of the block scalar indicator in a header line such as `key: |-  # note`.
fn header_column(line: &str) -> Option<u32> {
    let (at, _) = line.char_indices().rev().find(|&(i, c)| {
        let (before, after) = line.split_at(i);
        (c == '|' || c == '>')
            && before
                .chars()
                .next_back()
                .is_none_or(|p| p == ' ' || p == '\t')
            && {
                let rest = after.get(1..).unwrap_or_default();
                let rest =
                    rest.trim_start_matches(|c: char| c == '-' || c == '+' || c.is_ascii_digit());
                let rest = rest.trim_start();
                rest.is_empty() || rest.starts_with('#')
            }
    })?;
    let column = line.get(..at)?.chars().count() + 1;
    u32::try_from(column).ok()
}

fn pos_of(span: &Span) -> Pos {
    Pos {
        line: u32::try_from(span.start.line()).unwrap_or(u32::MAX),
        column: u32::try_from(span.start.col().saturating_add(1)).unwrap_or(u32::MAX),
    }
}

fn scan_error(e: ScanError) -> Error {
    let mark = e.marker();
    Error {
        kind: super::ErrorKind::Other,
        message: e.info().to_string(),
        pos: Pos {
            line: u32::try_from(mark.line()).unwrap_or(u32::MAX),
            column: u32::try_from(mark.col().saturating_add(1)).unwrap_or(u32::MAX),
        },
        related: None,
    }
}

fn error(pos: Pos, message: impl Into<String>) -> Error {
    Error {
        kind: super::ErrorKind::Other,
        message: message.into(),
        pos,
        related: None,
    }
}

/// Core-schema tags are shortened to `!!name`; others keep the form they were written in.
fn tag_text(tag: Option<std::borrow::Cow<'_, Tag>>) -> Option<super::node::Tag> {
    let tag = tag?;
    Some(super::node::Tag::new(if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else if tag.handle == "!" && tag.suffix.is_empty() {
        // The non-specific tag `!` only says "not plain-resolved": treat it as a string marker.
        "!".to_string()
    } else {
        tag.to_string()
    }))
}

fn style_of(style: SaphyrStyle) -> ScalarStyle {
    match style {
        SaphyrStyle::Plain => ScalarStyle::Plain,
        SaphyrStyle::SingleQuoted => ScalarStyle::SingleQuoted,
        SaphyrStyle::DoubleQuoted => ScalarStyle::DoubleQuoted,
        SaphyrStyle::Literal => ScalarStyle::Literal,
        SaphyrStyle::Folded => ScalarStyle::Folded,
    }
}

/// True for a key that asks for a merge: a plain `<<` or one tagged `!!merge`.
fn is_merge_key(key: &Scalar) -> bool {
    key.value == "<<"
        && ((key.style == ScalarStyle::Plain && key.tag.is_none())
            || key.tag.as_deref() == Some("!!merge"))
}

impl<'o> Builder<'o> {
    fn new(options: &'o ParseOptions) -> Self {
        Builder {
            options,
            stack: Vec::new(),
            items: Vec::new(),
            entries: Vec::new(),
            anchors: HashMap::new(),
            open_anchors: Vec::new(),
            produced: 0,
            root: None,
        }
    }

    /// Marks the collection being built as block style.
    fn innermost_to_block(&mut self) {
        match self.stack.last_mut() {
            Some(Frame::Seq { seq, .. }) => seq.style = CollectionStyle::Block,
            Some(Frame::Map { map, .. }) => map.style = CollectionStyle::Block,
            None => {}
        }
    }

    fn charge(&mut self, nodes: usize, pos: Pos) -> Result<(), Error> {
        self.produced = self.produced.saturating_add(nodes);
        if self.produced > self.options.max_expanded_nodes {
            return Err(error(
                pos,
                format!(
                    "document expands to more than {} nodes (an alias bomb?)",
                    self.options.max_expanded_nodes
                ),
            ));
        }
        Ok(())
    }

    /// Charges the nodes an alias or merge key copied to the run's budget, when there is one.
    fn charge_run(&self, nodes: usize, pos: Pos) -> Result<(), Error> {
        let Some(run) = self.options.run.as_ref().filter(|_| nodes > 0) else {
            return Ok(());
        };
        let resource = offlux_budget::Resource::AliasNodes;
        run.charge(resource, nodes as u64)
            .map_err(|exceeded| Error {
                kind: super::ErrorKind::Budget,
                ..error(pos, exceeded.to_string())
            })
    }

    fn check_depth(&self, depth: usize, pos: Pos) -> Result<(), Error> {
        if self.stack.len().saturating_add(depth) > self.options.max_depth {
            return Err(error(
                pos,
                format!("nesting deeper than {} levels", self.options.max_depth),
            ));
        }
        Ok(())
    }

    fn event(&mut self, event: Event<'_>, pos: Pos, flow: bool) -> Result<(), Error> {
        let style = if flow {
            CollectionStyle::Flow
        } else {
            CollectionStyle::Block
        };
        match event {
            Event::Scalar(value, style, anchor, tag) => {
                self.check_depth(1, pos)?;
                self.charge(1, pos)?;
                let scalar = Scalar {
                    value: CompactString::from(value),
                    style: style_of(style),
                    tag: tag_text(tag),
                    pos,
                };
                self.finish(Node::Scalar(scalar), anchor, 1, 1)
            }
            Event::Alias(id) => {
                if self.open_anchors.contains(&id) {
                    return Err(error(
                        pos,
                        "alias refers to a node that contains it (recursive alias)",
                    ));
                }
                let Some(anchored) = self.anchors.get(&id) else {
                    return Err(error(pos, "alias to an unknown anchor"));
                };
                let (size, depth) = (anchored.size, anchored.depth);
                self.check_depth(depth, pos)?;
                self.charge(size, pos)?;
                self.charge_run(size, pos)?;
                let node = self
                    .anchors
                    .get(&id)
                    .map(|a| a.node.clone())
                    .unwrap_or_default();
                self.finish(node, 0, size, depth)
            }
            Event::SequenceStart(anchor, tag) => {
                self.check_depth(1, pos)?;
                self.charge(1, pos)?;
                if anchor > 0 {
                    self.open_anchors.push(anchor);
                }
                self.stack.push(Frame::Seq {
                    seq: Sequence {
                        items: Vec::new(),
                        style,
                        tag: tag_text(tag),
                        pos,
                    },
                    start: self.items.len(),
                    anchor,
                    size: 1,
                    depth: 1,
                });
                Ok(())
            }
            Event::MappingStart(anchor, tag) => {
                self.check_depth(1, pos)?;
                self.charge(1, pos)?;
                if anchor > 0 {
                    self.open_anchors.push(anchor);
                }
                self.stack.push(Frame::Map {
                    map: Mapping {
                        entries: Vec::new(),
                        style,
                        tag: tag_text(tag),
                        pos,
                    },
                    start: self.entries.len(),
                    anchor,
                    size: 1,
                    depth: 1,
                    pending_key: None,
                    keys: KeyIndex::default(),
                    merges: Vec::new(),
                });
                Ok(())
            }
            Event::SequenceEnd | Event::MappingEnd => {
                let Some(frame) = self.stack.pop() else {
                    return Err(error(pos, "unbalanced collection end"));
                };
                match frame {
                    Frame::Seq {
                        mut seq,
                        start,
                        anchor,
                        size,
                        depth,
                    } => {
                        seq.items = self.items.drain(start..).collect();
                        self.finish(Node::Sequence(seq), anchor, size, depth)
                    }
                    Frame::Map {
                        mut map,
                        start,
                        anchor,
                        size,
                        depth,
                        merges,
                        ..
                    } => {
                        map.entries = self.entries.drain(start..).collect();
                        let extra = apply_merges(&mut map, merges)?;
                        self.charge(extra, pos)?;
                        self.charge_run(extra, pos)?;
                        self.finish(
                            Node::Mapping(map),
                            anchor,
                            size.saturating_add(extra),
                            depth,
                        )
                    }
                }
            }
            Event::StreamStart
            | Event::StreamEnd
            | Event::DocumentStart(_)
            | Event::DocumentEnd
            | Event::Nothing => Ok(()),
        }
    }

    /// Places a completed node into its parent (or as the document root) and records its anchor.
    fn finish(
        &mut self,
        node: Node,
        anchor: usize,
        size: usize,
        depth: usize,
    ) -> Result<(), Error> {
        if anchor > 0 {
            self.open_anchors.retain(|&a| a != anchor);
            // A later anchor of the same name gets a new id from saphyr, so "later definition wins"
            // falls out of id lookup.
            self.anchors.insert(
                anchor,
                Anchored {
                    node: node.clone(),
                    size,
                    depth,
                },
            );
        }
        let Some(parent) = self.stack.last_mut() else {
            let pos = node.pos();
            self.root = Some((node, pos));
            return Ok(());
        };
        match parent {
            Frame::Seq {
                size: psize,
                depth: pdepth,
                ..
            } => {
                *psize = psize.saturating_add(size);
                *pdepth = (*pdepth).max(depth.saturating_add(1));
                self.items.push(node);
                Ok(())
            }
            Frame::Map {
                start,
                size: psize,
                depth: pdepth,
                pending_key,
                keys,
                merges,
                ..
            } => {
                *psize = psize.saturating_add(size);
                *pdepth = (*pdepth).max(depth.saturating_add(1));
                match pending_key.take() {
                    None => {
                        let Node::Scalar(key) = node else {
                            return Err(error(
                                node.pos(),
                                format!(
                                    "a {} cannot be a mapping key (only scalar keys are supported)",
                                    node.kind_name()
                                ),
                            ));
                        };
                        *pending_key = Some(key);
                        Ok(())
                    }
                    Some(key) => {
                        let entries = &self.entries[*start..];
                        if is_merge_key(&key) {
                            merges.push((entries.len(), node));
                            return Ok(());
                        }
                        if let Some(first) = keys.find(entries, &key.value) {
                            if !self.options.last_key_wins {
                                return Err(Error {
                                    kind: super::ErrorKind::DuplicateKey {
                                        key: key.value.to_string(),
                                    },
                                    message: format!(
                                        "duplicate mapping key `{}` (first defined at {})",
                                        key.value, first.key.pos
                                    ),
                                    pos: key.pos,
                                    related: Some(first.key.pos),
                                });
                            }
                            drop_entry(&mut self.entries, *start, &key.value, keys, merges);
                        }
                        let entries = &self.entries[*start..];
                        keys.record(&key.value, entries.len());
                        self.entries.push(Entry { key, value: node });
                        Ok(())
                    }
                }
            }
        }
    }
}

/// Removes the entry with `key` from the mapping whose entries start at `start`, for a later
/// entry with the same key to take its place (at the end).
fn drop_entry(
    entries: &mut Vec<Entry>,
    start: usize,
    key: &str,
    keys: &mut KeyIndex,
    merges: &mut [(usize, Node)],
) {
    let Some(index) = entries
        .get(start..)
        .and_then(|mine| mine.iter().position(|e| e.key.value == key))
    else {
        return;
    };
    entries.remove(start + index);
    keys.forget();
    for (at, _) in merges.iter_mut() {
        if *at > index {
            *at -= 1;
        }
    }
}

/// Applies `<<` values: a mapping, or a sequence of mappings where earlier ones take precedence.
/// Keys already present (explicit, or from an earlier merge) win. Merged entries are inserted where
/// the `<<` key stood. Returns the number of nodes added, for the expansion budget.
fn apply_merges(map: &mut Mapping, merges: Vec<(usize, Node)>) -> Result<usize, Error> {
    if merges.is_empty() {
        return Ok(0);
    }
    let mut present: HashMap<CompactString, ()> = map
        .entries
        .iter()
        .map(|e| (e.key.value.clone(), ()))
        .collect();
    let mut added = 0usize;
    // Insert from the last `<<` backwards so earlier insertion indexes stay valid; precedence is
    // decided first, in source order.
    let mut planned: Vec<(usize, Vec<Entry>)> = Vec::new();
    for (index, value) in merges {
        let sources: Vec<Mapping> = match value {
            Node::Mapping(m) => vec![m],
            Node::Sequence(s) => {
                let mut maps = Vec::new();
                for item in s.items {
                    match item {
                        Node::Mapping(m) => maps.push(m),
                        other => {
                            return Err(error(
                                other.pos(),
                                format!(
                                    "a merge key (`<<`) list may hold only mappings, found a {}",
                                    other.kind_name()
                                ),
                            ))
                        }
                    }
                }
                maps
            }
            other => {
                return Err(error(
                    other.pos(),
                    format!(
                        "a merge key (`<<`) needs a mapping or a list of mappings, found a {}",
                        other.kind_name()
                    ),
                ))
            }
        };
        let mut chosen = Vec::new();
        for source in sources {
            for entry in source.entries {
                if present.contains_key(&entry.key.value) {
                    continue;
                }
                present.insert(entry.key.value.clone(), ());
                added = added.saturating_add(count_nodes(&entry.value).saturating_add(1));
                chosen.push(entry);
            }
        }
        planned.push((index, chosen));
    }
    for (index, chosen) in planned.into_iter().rev() {
        let at = index.min(map.entries.len());
        map.entries.splice(at..at, chosen);
    }
    Ok(added)
}

fn count_nodes(node: &Node) -> usize {
    match node {
        Node::Scalar(_) => 1,
        Node::Sequence(s) => s
            .items
            .iter()
            .fold(1usize, |n, i| n.saturating_add(count_nodes(i))),
        Node::Mapping(m) => m.entries.iter().fold(1usize, |n, e| {
            n.saturating_add(1).saturating_add(count_nodes(&e.value))
        }),
    }
}
