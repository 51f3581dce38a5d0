//! The canonical emitter: prints a tree the way `kustomize build` prints a resource. kustomize
//! turns each resource into JSON and then into YAML with `sigs.k8s.io/yaml` (go-yaml v2), so the
//! layout is go-yaml v2's: 2-space indent, sequences inside mappings not indented, `- key: v` for
//! mappings in sequences, `{}`/`[]` for empty collections, long lines folded past column 80,
//! literal blocks for multi-line strings, and strings quoted when a YAML 1.1 reader would mistype
//! them. Helm's `toYaml` goes through the same encoder, so it is this emitter with sorted keys.
//!
//! The style of each scalar is decided by its value and type (from the kyaml resolver), not by how
//! it was written: that is what the JSON round trip in kustomize does. Plain scalars that resolve to
//! numbers keep their text; booleans and nulls are printed in their canonical spelling.
//!
//! Not for: preserving comments, flow style or source quoting (kustomize drops them too).

use super::canon::{kyaml_entries, respell};
use super::node::{CollectionStyle, Entry, Mapping, Node, Scalar, ScalarStyle, Sequence};
use super::order::sort_keys;
use super::resolve::{
    is_plain_word, kyaml_timestamp, resolve_kyaml, scalar_needs_quoting, Resolved,
};

/// Output choices.
#[derive(Clone, Debug, Default)]
pub struct EmitOptions {
    /// Sort mapping keys in go-yaml v2's order before printing (what `kustomize build` and Helm's
    /// `toYaml` do). Off by default: callers that already ordered the keys keep their order.
    pub sort_keys: bool,
    /// Print as kyaml (go-yaml v3 on kustomize's node tree) prints a tree it was given, instead of
    /// through the JSON round trip: scalars keep their source quoting and block style, flow
    /// collections stay flow, non-string scalars keep their spelling. This is the output of
    /// kustomize's filters and KRM functions, not of `kustomize build`.
    pub preserve_style: bool,
    /// Whose output to imitate where the programs that print through go-yaml differ.
    pub dialect: Dialect,
}

/// The printers [`emit`] imitates beyond `kustomize build`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Dialect {
    /// `kustomize build` (go-yaml v2 after JSON). A `<<` key is double-quoted: written plain, as
    /// go-yaml writes it, it would read back as a merge (kustomize itself loses such a key).
    #[default]
    Kustomize,
    /// Helm's `toYaml` (`sigs.k8s.io/yaml`: go-yaml v2 after JSON), `<<` keys plain.
    HelmToYaml,
    /// Helm's `toYamlPretty` (go-yaml v3, indent 2): `<<` keys plain, a sequence that is a
    /// mapping's value indented under its key, and no line folded, however long.
    HelmToYamlPretty,
}

const BEST_WIDTH: usize = 80;
const BEST_INDENT: isize = 2;
/// go-yaml writes longer keys in the explicit `? key` form.
const MAX_SIMPLE_KEY_LEN: usize = 128;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    Single,
    Double,
    Literal,
    Folded,
}

pub(super) fn emit(node: &Node, options: &EmitOptions) -> String {
    let mode = if options.preserve_style {
        Mode::PreserveStyle
    } else {
        Mode::Json
    };
    let mut emitter = Emitter::new(mode);
    emitter.dialect = options.dialect;
    if options.dialect == Dialect::HelmToYamlPretty {
        emitter.best_width = usize::MAX;
        emitter.indentless_sequences = false;
    }
    if options.sort_keys {
        let mut sorted = node.clone();
        sort_keys(&mut sorted);
        emitter.document(&sorted)
    } else {
        emitter.document(node)
    }
}

/// What `emit(&canonical_kyaml(node), &EmitOptions::default())` prints, without building the
/// canonical copy: keys are ordered and scalars respelled as the emitter reaches them.
pub fn emit_canonical_kyaml(node: &Node) -> String {
    Emitter::new(Mode::CanonicalKyaml).document(node)
}

/// `emit_canonical_kyaml(node)` written after what `out` holds (nothing, or whole lines): one
/// buffer for a run of documents instead of one each.
pub fn emit_canonical_kyaml_onto(node: &Node, out: String) -> String {
    let mut emitter = Emitter::new(Mode::CanonicalKyaml);
    emitter.out = out;
    emitter.document(node)
}

pub(super) fn emit_stream(nodes: &[Node], options: &EmitOptions) -> String {
    let mut out = String::new();
    for (i, node) in nodes.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&emit(node, options));
    }
    out
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Context {
    Root,
    SequenceItem,
    SimpleKey,
    ComplexKey,
    MappingValue,
}

/// What the emitter prints scalars and mappings as.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Typed and spelled by value, as after kustomize's JSON round trip; keys in the tree's order.
    Json,
    /// `Json` for the tree `canonical_kyaml` makes of the node: keys sorted and deduplicated,
    /// scalars respelled.
    CanonicalKyaml,
    /// Source quoting, flow style and tags kept (`EmitOptions::preserve_style`).
    PreserveStyle,
}

/// The emitter state of libyaml/go-yaml that decides spacing and line breaks.
struct Emitter {
    out: String,
    column: usize,
    indent: isize,
    indents: Vec<isize>,
    /// The last character written was whitespace (or nothing yet).
    whitespace: bool,
    /// Only indentation has been written on the current line.
    indention: bool,
    mapping_context: bool,
    simple_key_context: bool,
    flow_level: usize,
    mode: Mode,
    /// The column past which long scalars fold.
    best_width: usize,
    /// A block sequence that is a mapping's value starts at the key's column.
    indentless_sequences: bool,
    dialect: Dialect,
}

impl Emitter {
    fn new(mode: Mode) -> Self {
        Emitter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
            mapping_context: false,
            simple_key_context: false,
            flow_level: 0,
            mode,
            best_width: BEST_WIDTH,
            indentless_sequences: true,
            dialect: Dialect::Kustomize,
        }
    }

    fn document(mut self, node: &Node) -> String {
        // Most objects print to a kilobyte or two; growing from empty took several copies each.
        if self.out.is_empty() {
            self.out.reserve(2048);
        }
        self.node(node, Context::Root);
        self.write_indent();
        self.out
    }

    fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    /// Writes text holding no line break.
    fn put_str(&mut self, text: &str) {
        self.out.push_str(text);
        self.column += if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
    }

    fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    fn write_indent(&mut self) {
        let indent = usize::try_from(self.indent.max(0)).unwrap_or(0);
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        const SPACES: &str = "                                ";
        while self.column < indent {
            let n = (indent - self.column).min(SPACES.len());
            self.out.push_str(&SPACES[..n]);
            self.column += n;
        }
        self.whitespace = true;
        self.indention = true;
    }

    fn write_indicator(
        &mut self,
        indicator: &str,
        need_whitespace: bool,
        is_whitespace: bool,
        is_indention: bool,
    ) {
        if need_whitespace && !self.whitespace {
            self.put(' ');
        }
        self.put_str(indicator);
        self.whitespace = is_whitespace;
        self.indention = self.indention && is_indention;
    }

    fn increase_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    fn set_context(&mut self, context: Context) {
        self.mapping_context = matches!(
            context,
            Context::SimpleKey | Context::ComplexKey | Context::MappingValue
        );
        self.simple_key_context = context == Context::SimpleKey;
    }

    fn node(&mut self, node: &Node, context: Context) {
        self.set_context(context);
        let preserve_style = self.mode == Mode::PreserveStyle;
        if preserve_style {
            let tag = match node {
                Node::Scalar(_) => None,
                Node::Sequence(seq) => seq.tag.as_deref(),
                Node::Mapping(m) => m.tag.as_deref(),
            };
            if let Some(tag) = tag {
                self.write_indicator(tag, true, false, false);
            }
        }
        let flow = |style: CollectionStyle| {
            self.flow_level > 0 || (preserve_style && style == CollectionStyle::Flow)
        };
        match node {
            Node::Scalar(s) => self.scalar(s, context),
            Node::Sequence(seq) if seq.items.is_empty() || flow(seq.style) => {
                self.flow_sequence(seq)
            }
            Node::Mapping(m) if m.entries.is_empty() || flow(m.style) => self.flow_mapping(m),
            Node::Sequence(seq) => {
                let indentless =
                    self.indentless_sequences && self.mapping_context && !self.indention;
                self.increase_indent(false, indentless);
                for item in &seq.items {
                    self.write_indent();
                    self.write_indicator("-", true, false, true);
                    self.node(item, Context::SequenceItem);
                }
                self.pop_indent();
            }
            Node::Mapping(m) => self.mapping(m),
        }
    }

    /// The entries in the order they are printed.
    fn entries<'n>(&self, m: &'n Mapping) -> Vec<&'n Entry> {
        if self.mode == Mode::CanonicalKyaml {
            kyaml_entries(m)
        } else {
            m.entries.iter().collect()
        }
    }

    fn key(&mut self, key: &Scalar, context: Context) {
        self.set_context(context);
        self.scalar(key, context);
    }

    fn flow_sequence(&mut self, seq: &Sequence) {
        self.write_indicator("[", true, true, false);
        self.increase_indent(true, false);
        self.flow_level += 1;
        for (i, item) in seq.items.iter().enumerate() {
            if i > 0 {
                self.write_indicator(",", false, false, false);
            }
            if self.column > self.best_width {
                self.write_indent();
            }
            self.node(item, Context::SequenceItem);
        }
        self.flow_level -= 1;
        self.pop_indent();
        self.write_indicator("]", false, false, false);
    }

    fn flow_mapping(&mut self, m: &Mapping) {
        self.write_indicator("{", true, true, false);
        self.increase_indent(true, false);
        self.flow_level += 1;
        for (i, entry) in self.entries(m).into_iter().enumerate() {
            if i > 0 {
                self.write_indicator(",", false, false, false);
            }
            if self.column > self.best_width {
                self.write_indent();
            }
            if is_simple_key(&entry.key) {
                self.key(&entry.key, Context::SimpleKey);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, false);
                self.key(&entry.key, Context::ComplexKey);
                self.write_indicator(":", true, false, false);
            }
            self.node(&entry.value, Context::MappingValue);
        }
        self.flow_level -= 1;
        self.pop_indent();
        self.write_indicator("}", false, false, false);
    }

    fn mapping(&mut self, m: &Mapping) {
        self.increase_indent(false, false);
        for entry in self.entries(m) {
            self.write_indent();
            if is_simple_key(&entry.key) {
                self.key(&entry.key, Context::SimpleKey);
                self.write_indicator(":", false, false, false);
            } else {
                self.write_indicator("?", true, false, true);
                self.key(&entry.key, Context::ComplexKey);
                self.write_indent();
                self.write_indicator(":", true, false, true);
            }
            self.node(&entry.value, Context::MappingValue);
        }
        self.pop_indent();
    }

    fn scalar(&mut self, s: &Scalar, context: Context) {
        if self.mode == Mode::CanonicalKyaml
            && s.tag.is_none()
            && s.style != ScalarStyle::Folded
            && is_plain_word(&s.value)
        {
            // A string whichever way it was written, that every style check below would leave
            // plain: most keys and values. It holds no space or break, so `write_plain` would
            // write it whole, at any indentation.
            if !self.whitespace {
                self.put(' ');
            }
            self.out.push_str(&s.value);
            self.column += s.value.len();
            self.whitespace = false;
            self.indention = false;
            return;
        }
        let is_key = matches!(context, Context::SimpleKey | Context::ComplexKey);
        let respelled;
        let (text, requested) = match self.mode {
            Mode::PreserveStyle => (s.value.as_str(), source_style(s)),
            Mode::CanonicalKyaml if !is_key => {
                respelled = respell(s);
                let text: &str = &respelled.text;
                if respelled.is_string {
                    (text, string_style(text))
                } else {
                    (text, Style::Plain)
                }
            }
            Mode::CanonicalKyaml | Mode::Json if is_key && self.dialect != Dialect::Kustomize => {
                (s.value.as_str(), string_style(&s.value))
            }
            Mode::CanonicalKyaml | Mode::Json => requested_style(s, is_key),
        };
        let analysis =
            if self.dialect != Dialect::Kustomize && text.contains(['\u{2028}', '\u{2029}']) {
                // Helm's output is read back by go-yaml alone, which takes LS and PS for breaks.
                analyze_chars(text, text.chars(), LineSeparators::Breaks)
            } else {
                analyze(text)
            };
        let mut style = self.select_style(requested, &analysis, text);
        if self.mode == Mode::PreserveStyle {
            if let Some(tag) = &s.tag {
                self.write_indicator(tag, true, false, false);
            }
            // An empty null keeps its empty spelling where that reads back as null; in a flow
            // collection or as a key it would need quotes, so it is spelled `null`.
            if text.is_empty() && s.style == ScalarStyle::Plain && s.tag.is_none() {
                if self.flow_level > 0 || self.simple_key_context {
                    return self.write_plain_scalar("null", !self.simple_key_context);
                }
                style = Style::Plain;
            }
        }
        self.increase_indent(true, false);
        let allow_breaks = !self.simple_key_context;
        match style {
            Style::Plain => self.write_plain(text, allow_breaks),
            Style::Single => self.write_single_quoted(text, allow_breaks),
            Style::Double => self.write_double_quoted(text, allow_breaks),
            Style::Literal => self.write_literal(text),
            Style::Folded => self.write_folded(text),
        }
        self.pop_indent();
    }

    fn select_style(&self, requested: Style, a: &Analysis, text: &str) -> Style {
        let mut style = requested;
        if self.simple_key_context && a.multiline {
            style = Style::Double;
        }
        if style == Style::Plain {
            let flow = self.flow_level > 0;
            if (flow && !a.flow_plain_allowed)
                || (!flow && !a.block_plain_allowed)
                || (text.is_empty() && (flow || self.simple_key_context))
            {
                style = Style::Single;
            }
        }
        if style == Style::Single && !a.single_quoted_allowed {
            style = Style::Double;
        }
        if matches!(style, Style::Literal | Style::Folded)
            && (!a.block_allowed || self.flow_level > 0 || self.simple_key_context)
        {
            style = Style::Double;
        }
        style
    }

    fn write_plain_scalar(&mut self, text: &str, allow_breaks: bool) {
        self.increase_indent(true, false);
        self.write_plain(text, allow_breaks);
        self.pop_indent();
    }

    fn write_plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace && !text.is_empty() {
            self.put(' ');
        }
        let mut spaces = false;
        let mut breaks = false;
        let mut rest = text;
        while !rest.is_empty() {
            let (run, c, after) = next_special(rest, &PLAIN_STOPS);
            if !run.is_empty() {
                self.write_text_after_breaks(run, &mut spaces, &mut breaks);
            }
            rest = after;
            let Some(c) = c else { break };
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && !rest.starts_with(' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    /// Writes text of a plain or single-quoted scalar, on a new indented line after line breaks.
    fn write_text_after_breaks(&mut self, text: &str, spaces: &mut bool, breaks: &mut bool) {
        if *breaks {
            self.write_indent();
        }
        self.put_str(text);
        self.indention = false;
        *spaces = false;
        *breaks = false;
    }

    fn write_break(&mut self, c: char) {
        if c == '\n' {
            self.put_break();
        } else {
            self.out.push(c);
            self.column = 0;
        }
    }

    fn write_single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("'", true, false, false);
        let mut spaces = false;
        let mut breaks = false;
        let mut rest = text;
        while !rest.is_empty() {
            let (run, c, after) = next_special(rest, &SINGLE_QUOTED_STOPS);
            if !run.is_empty() {
                self.write_text_after_breaks(run, &mut spaces, &mut breaks);
            }
            let at_start = after.len() + c.map_or(0, char::len_utf8) == text.len();
            rest = after;
            let Some(c) = c else { break };
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && !at_start
                    && !rest.is_empty()
                    && !rest.starts_with(' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if c == '\'' {
                self.write_text_after_breaks("''", &mut spaces, &mut breaks);
            } else {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            }
        }
        // go-yaml would put the closing quote at column 0 after a trailing break, which a strict
        // reader rejects inside a collection; indenting it reads back the same. Helm's output is
        // go-yaml's own.
        if breaks && self.dialect == Dialect::Kustomize {
            self.write_indent();
        }
        self.write_indicator("'", false, false, false);
    }

    fn write_double_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.write_indicator("\"", true, false, false);
        let mut spaces = false;
        let mut rest = text;
        while !rest.is_empty() {
            let (run, c, after) = next_special(rest, &DOUBLE_QUOTED_STOPS);
            if !run.is_empty() {
                self.put_str(run);
                spaces = false;
            }
            let at_start = after.len() + c.map_or(0, char::len_utf8) == text.len();
            rest = after;
            let Some(c) = c else { break };
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > self.best_width
                    && !at_start
                    && !rest.is_empty()
                {
                    self.write_indent();
                    if rest.starts_with(' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.write_escape(c);
                spaces = false;
            }
        }
        self.write_indicator("\"", false, false, false);
    }

    fn write_escape(&mut self, c: char) {
        self.put('\\');
        let short = match c {
            '\0' => '0',
            '\u{7}' => 'a',
            '\u{8}' => 'b',
            '\t' => 't',
            '\n' => 'n',
            '\u{b}' => 'v',
            '\u{c}' => 'f',
            '\r' => 'r',
            '\u{1b}' => 'e',
            '"' => '"',
            '\\' => '\\',
            '\u{85}' => 'N',
            '\u{a0}' => '_',
            '\u{2028}' => 'L',
            '\u{2029}' => 'P',
            _ => {
                let v = u32::from(c);
                let escaped = if v <= 0xff {
                    format!("x{v:02X}")
                } else if v <= 0xffff {
                    format!("u{v:04X}")
                } else {
                    format!("U{v:08X}")
                };
                return self.put_str(&escaped);
            }
        };
        self.put(short);
    }

    fn write_literal(&mut self, text: &str) {
        self.write_indicator("|", true, false, false);
        self.write_block_hints(text);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut rest = text;
        while !rest.is_empty() {
            let (line, c, after) = next_special(rest, &BREAK_STOPS);
            if !line.is_empty() {
                self.write_indent();
                self.put_str(line);
                self.indention = false;
            }
            rest = after;
            if let Some(c) = c {
                self.write_break(c);
                self.indention = true;
            }
        }
    }

    fn write_folded(&mut self, text: &str) {
        self.write_indicator(">", true, false, false);
        self.write_block_hints(text);
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let chars: Vec<char> = text.chars().collect();
        let mut breaks = true;
        let mut leading_spaces = true;
        for (i, &c) in chars.iter().enumerate() {
            if is_break_char(c) {
                // A single break between two unindented lines would fold into a space on reading,
                // so it is written as an empty line; not before a more-indented line.
                let next = chars.iter().skip(i).find(|&&n| !is_break_char(n));
                let next_blank = next.is_none_or(|&n| matches!(n, ' ' | '\t' | '\0'));
                if !breaks && !leading_spaces && c == '\n' && !next_blank {
                    self.put_break();
                }
                self.write_break(c);
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                    leading_spaces = matches!(c, ' ' | '\t');
                }
                // Breaking a more-indented line would change the text on reading (such lines do
                // not fold), so only ordinary lines are folded.
                if !breaks
                    && !leading_spaces
                    && c == ' '
                    && chars.get(i + 1) != Some(&' ')
                    && self.column > self.best_width
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                self.indention = false;
                breaks = false;
            }
        }
    }

    fn write_block_hints(&mut self, text: &str) {
        // Block scalar header hints: an indentation indicator when the text starts with a space or
        // a break, and the chomping indicator from the trailing breaks.
        if text.starts_with(|c: char| c == ' ' || is_break_char(c)) {
            let hint = BEST_INDENT.to_string();
            self.write_indicator(&hint, false, false, false);
        }
        let mut rev = text.chars().rev();
        let chomp = match (rev.next(), rev.next()) {
            (None, _) => Some("-"),
            (Some(last), _) if !is_break_char(last) => Some("-"),
            (Some(_), None) => Some("+"),
            (Some(_), Some(prev)) if is_break_char(prev) => Some("+"),
            _ => None,
        };
        if let Some(chomp) = chomp {
            self.write_indicator(chomp, false, false, false);
        }
    }
}

/// The text of a scalar and the style go-yaml asks for before the emitter's own checks, in the
/// canonical (not style-preserving) form.
fn requested_style(s: &Scalar, is_key: bool) -> (&str, Style) {
    if is_key && s.value == "<<" {
        // go-yaml prints this key plain, which every reader then takes for a merge key.
        return (s.value.as_str(), Style::Double);
    }
    if is_key {
        // Keys are always strings after kustomize's JSON step.
        return (s.value.as_str(), string_style(&s.value));
    }
    match resolve_kyaml(s) {
        Resolved::Null => ("null", Style::Plain),
        Resolved::Bool(true) => ("true", Style::Plain),
        Resolved::Bool(false) => ("false", Style::Plain),
        Resolved::Int(_) | Resolved::Uint(_) | Resolved::Float(_) => {
            (s.value.as_str(), Style::Plain)
        }
        // A timestamp is a time value to go-yaml v3, not a string: like a number it keeps
        // its spelling (`canonical_kyaml` respells it as kustomize does).
        Resolved::Str if kyaml_timestamp(s).is_some() => (s.value.as_str(), Style::Plain),
        Resolved::Str => (s.value.as_str(), string_style(&s.value)),
    }
}

/// The text and style a scalar is printed in by [`emit`] in a block mapping, as a key or as a
/// value: what a reader of the output reads back.
pub(super) fn printed_scalar(s: &Scalar, is_key: bool) -> (&str, ScalarStyle) {
    let (text, requested) = requested_style(s, is_key);
    let mut emitter = Emitter::new(Mode::Json);
    emitter.simple_key_context = is_key && is_simple_key(s);
    let style = match emitter.select_style(requested, &analyze(text), text) {
        Style::Plain => ScalarStyle::Plain,
        Style::Single => ScalarStyle::SingleQuoted,
        Style::Double => ScalarStyle::DoubleQuoted,
        Style::Literal => ScalarStyle::Literal,
        Style::Folded => ScalarStyle::Folded,
    };
    (text, style)
}

/// Whether `text`, standing in a block mapping value or sequence item on one line, reads back
/// as one plain scalar holding exactly `text`: the test the emitter applies before printing a
/// value plain.
pub fn reads_back_as_plain(text: &str) -> bool {
    let a = analyze(text);
    !a.multiline && a.block_plain_allowed
}

fn is_simple_key(key: &Scalar) -> bool {
    let value: &str = &key.value;
    value.len() <= MAX_SIMPLE_KEY_LEN && !has_break(value)
}

fn has_break(text: &str) -> bool {
    // Every break character's UTF-8 starts with one of these bytes; most text holds none.
    const MAY_START_BREAK: [bool; 256] = {
        let mut table = [false; 256];
        table[b'\r' as usize] = true;
        table[b'\n' as usize] = true;
        table[0xC2] = true;
        table[0xE2] = true;
        table
    };
    text.bytes().any(|b| MAY_START_BREAK[usize::from(b)]) && text.contains(is_break_char)
}

/// The style a scalar asks for in style-preserving mode: as written, with multi-line plain text
/// (which only a built tree can hold) as a literal block.
fn source_style(s: &Scalar) -> Style {
    match s.style {
        ScalarStyle::SingleQuoted => Style::Single,
        ScalarStyle::DoubleQuoted => Style::Double,
        ScalarStyle::Literal => Style::Literal,
        ScalarStyle::Folded => Style::Folded,
        ScalarStyle::Plain if s.value.contains('\n') => Style::Literal,
        ScalarStyle::Plain => Style::Plain,
    }
}

/// go-yaml v2's choice for a string value before the emitter's own checks: literal for
/// multi-line text, double quotes for text a YAML 1.1 reader would mistype, plain otherwise.
fn string_style(value: &str) -> Style {
    if value.contains('\n') {
        Style::Literal
    } else if scalar_needs_quoting(value) {
        Style::Double
    } else {
        Style::Plain
    }
}

const fn is_break_char(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// What double quotes must escape.
const fn needs_escape(c: char) -> bool {
    !is_printable(c) || is_break_char(c) || c == '"' || c == '\\'
}

/// The characters `next_special` stops at: ASCII ones looked up in a table, the rest tested.
struct Stops {
    ascii: [bool; 128],
    other: fn(char) -> bool,
}

/// `Stops` for a `const fn` test.
macro_rules! stops {
    ($test:expr) => {{
        const fn ascii() -> [bool; 128] {
            let mut table = [false; 128];
            let mut b = 0;
            while b < 128 {
                table[b] = $test(b as u8 as char);
                b += 1;
            }
            table
        }
        Stops {
            ascii: ascii(),
            other: $test,
        }
    }};
}

/// Where plain text may fold or break.
const fn plain_stop(c: char) -> bool {
    c == ' ' || is_break_char(c)
}

/// Where single-quoted text may fold or break, and its quotes (doubled).
const fn single_quoted_stop(c: char) -> bool {
    c == ' ' || c == '\'' || is_break_char(c)
}

/// Where double-quoted text may fold, and what it escapes.
const fn double_quoted_stop(c: char) -> bool {
    c == ' ' || needs_escape(c)
}

const PLAIN_STOPS: Stops = stops!(plain_stop);
const SINGLE_QUOTED_STOPS: Stops = stops!(single_quoted_stop);
const DOUBLE_QUOTED_STOPS: Stops = stops!(double_quoted_stop);
const BREAK_STOPS: Stops = stops!(is_break_char);

/// `text` split at the first character of `stops`: the run before it, the character (none if
/// there is none), and the rest after it.
fn next_special<'t>(text: &'t str, stops: &Stops) -> (&'t str, Option<char>, &'t str) {
    // By bytes, decoding only non-ASCII characters: most text is ASCII.
    let bytes = text.as_bytes();
    let mut at = 0;
    while let Some(&b) = bytes.get(at) {
        if b < 0x80 {
            if stops.ascii[usize::from(b)] {
                return (&text[..at], Some(char::from(b)), &text[at + 1..]);
            }
            at += 1;
            continue;
        }
        let c = text
            .get(at..)
            .and_then(|t| t.chars().next())
            .unwrap_or_default();
        if (stops.other)(c) {
            return (&text[..at], Some(c), &text[at + c.len_utf8()..]);
        }
        at += c.len_utf8();
    }
    (text, None, "")
}

/// libyaml's printable set: go-yaml escapes or quotes anything else.
const fn is_printable(c: char) -> bool {
    matches!(c as u32, 0x0A | 0x20..=0x7E | 0xA0..=0xD7FF | 0xE000..=0xFFFD) && c != '\u{feff}'
}

/// The facts libyaml's `analyze_scalar` collects to decide which styles can hold a value.
#[derive(Debug, PartialEq)]
struct Analysis {
    multiline: bool,
    flow_plain_allowed: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn analyze(value: &str) -> Analysis {
    if value.is_empty() {
        return Analysis {
            multiline: false,
            flow_plain_allowed: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let bytes = value.as_bytes();
    if bytes[0].is_ascii_alphanumeric() && bytes.iter().all(u8::is_ascii_graphic) {
        // Most values: no spaces, breaks or special characters and no indicator at the start, so
        // only `,?[]{}:` inside matter (`#` does only after whitespace), and `:` at the end.
        let flow_indicators = bytes
            .iter()
            .any(|b| matches!(b, b',' | b'?' | b'[' | b']' | b'{' | b'}' | b':'));
        return Analysis {
            multiline: false,
            flow_plain_allowed: !flow_indicators,
            block_plain_allowed: !value.ends_with(':'),
            single_quoted_allowed: true,
            block_allowed: true,
        };
    }
    if value.is_ascii() || !has_special_non_ascii(bytes) {
        analyze_bytes(bytes)
    } else {
        analyze_chars(value, value.chars(), LineSeparators::Escaped)
    }
}

/// Whether UTF-8 `bytes` hold a character beyond ASCII that the analysis must tell apart: a C1
/// control (NEL among them), LS or PS, the byte-order mark, U+FFFE or U+FFFF, or anything past
/// U+FFFF. Every other such character is printable and neither a space, a break nor an indicator.
fn has_special_non_ascii(bytes: &[u8]) -> bool {
    let at = |i: usize| bytes.get(i).copied();
    bytes.iter().enumerate().any(|(i, &b)| match b {
        0xC2 => at(i + 1).is_some_and(|next| next < 0xA0),
        0xE2 => at(i + 1) == Some(0x80) && matches!(at(i + 2), Some(0xA8 | 0xA9)),
        0xEF => matches!(
            (at(i + 1), at(i + 2)),
            (Some(0xBB), Some(0xBF)) | (Some(0xBF), Some(0xBE | 0xBF))
        ),
        0xF0..=0xFF => true,
        _ => false,
    })
}

/// What a scan of a scalar's characters found; [`ScanFacts::analysis`] turns it into the styles
/// that can hold the scalar, as libyaml does.
struct ScanFacts {
    line_breaks: bool,
    special_characters: bool,
    flow_indicators: bool,
    block_indicators: bool,
    leading_space: bool,
    leading_break: bool,
    trailing_space: bool,
    trailing_break: bool,
    break_space: bool,
    space_break: bool,
}

impl ScanFacts {
    fn analysis(&self) -> Analysis {
        let mut a = Analysis {
            multiline: self.line_breaks,
            flow_plain_allowed: true,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: true,
        };
        if self.leading_space || self.leading_break || self.trailing_space || self.trailing_break {
            a.flow_plain_allowed = false;
            a.block_plain_allowed = false;
        }
        if self.trailing_space {
            a.block_allowed = false;
        }
        if self.break_space {
            a.flow_plain_allowed = false;
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
        }
        if self.space_break || self.special_characters {
            a.flow_plain_allowed = false;
            a.block_plain_allowed = false;
            a.single_quoted_allowed = false;
            a.block_allowed = false;
        }
        if self.line_breaks || self.flow_indicators {
            a.flow_plain_allowed = false;
        }
        if self.line_breaks || self.block_indicators {
            a.block_plain_allowed = false;
        }
        a
    }
}

/// [`analyze_chars`] by bytes, for text without the characters [`has_special_non_ascii`] looks
/// for: ordinary bytes (letters, digits, most punctuation, every byte of a character beyond ASCII)
/// cost one table lookup, which matters for long values such as embedded scripts and dashboards.
fn analyze_bytes(bytes: &[u8]) -> Analysis {
    if bytes.contains(&b'\n') {
        return analyze_lines(bytes);
    }
    const ORDINARY: u8 = 0;
    const SPACE: u8 = 1;
    const BREAK: u8 = 2;
    const FLOW: u8 = 3;
    const COLON: u8 = 4;
    const HASH: u8 = 5;
    const SPECIAL: u8 = 6;
    const CLASSES: [u8; 256] = {
        let mut table = [ORDINARY; 256];
        let mut b = 0;
        while b < 0x20 {
            table[b] = SPECIAL;
            b += 1;
        }
        table[0x7F] = SPECIAL;
        table[b' ' as usize] = SPACE;
        table[b'\n' as usize] = BREAK;
        table[b'\r' as usize] = BREAK;
        table[b',' as usize] = FLOW;
        table[b'?' as usize] = FLOW;
        table[b'[' as usize] = FLOW;
        table[b']' as usize] = FLOW;
        table[b'{' as usize] = FLOW;
        table[b'}' as usize] = FLOW;
        table[b':' as usize] = COLON;
        table[b'#' as usize] = HASH;
        table
    };
    let n = bytes.len();
    let class = |i: usize| CLASSES[usize::from(bytes[i])];
    let followed_by_whitespace = |i: usize| i + 1 >= n || matches!(bytes[i + 1], b' ' | b'\t');
    let is_whitespace = |b: u8| matches!(b, b' ' | b'\t' | b'\0' | b'\n' | b'\r');
    let mut block_indicators = bytes.starts_with(b"---") || bytes.starts_with(b"...");
    let mut flow_indicators = block_indicators || bytes.ends_with(b" -") || bytes.ends_with(b"\t-");
    match bytes[0] {
        b'#' | b',' | b'[' | b']' | b'{' | b'}' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
        | b'"' | b'%' | b'@' | b'`' => {
            flow_indicators = true;
            block_indicators = true;
        }
        b'?' | b':' => {
            flow_indicators = true;
            block_indicators |= followed_by_whitespace(0);
        }
        b'-' if followed_by_whitespace(0) => {
            flow_indicators = true;
            block_indicators = true;
        }
        _ => {}
    }
    // A carriage return is a line break and, not being printable, also needs escaping.
    let mut special_characters = class(0) == SPECIAL || bytes[0] == b'\r';
    let mut line_breaks = class(0) == BREAK;
    let (mut break_space, mut space_break) = (false, false);
    for i in 1..n {
        match class(i) {
            ORDINARY => {}
            SPACE => break_space |= class(i - 1) == BREAK,
            BREAK => {
                line_breaks = true;
                space_break |= bytes[i - 1] == b' ';
                special_characters |= bytes[i] == b'\r';
            }
            FLOW => flow_indicators = true,
            COLON => {
                flow_indicators = true;
                block_indicators |= followed_by_whitespace(i);
            }
            HASH => {
                if is_whitespace(bytes[i - 1]) {
                    flow_indicators = true;
                    block_indicators = true;
                }
            }
            _ => special_characters = true,
        }
    }
    ScanFacts {
        line_breaks,
        special_characters,
        flow_indicators,
        block_indicators,
        leading_space: bytes[0] == b' ',
        leading_break: class(0) == BREAK,
        trailing_space: bytes[n - 1] == b' ',
        trailing_break: class(n - 1) == BREAK,
        break_space,
        space_break,
    }
    .analysis()
}

/// [`analyze_bytes`] for text holding a line feed, in whole-slice scans the compiler can
/// vectorise: no plain style can hold a line break, so only special characters, a space next to a
/// break and a trailing space still decide anything. Long multi-line values (scripts, dashboards)
/// are most of the bytes printed.
fn analyze_lines(bytes: &[u8]) -> Analysis {
    // A carriage return is a break but also special, which rules out every style it could matter to.
    let special = bytes.iter().fold(false, |found, &b| {
        found | ((b < 0x20) & (b != b'\n')) | (b == 0x7F)
    });
    let pairs = || bytes.iter().zip(&bytes[1..]);
    let break_space = pairs().fold(false, |found, (&a, &b)| {
        found | ((a == b'\n') & (b == b' '))
    });
    let space_break = pairs().fold(false, |found, (&a, &b)| {
        found | ((a == b' ') & (b == b'\n'))
    });
    let trailing_space = bytes.last() == Some(&b' ');
    Analysis {
        multiline: true,
        flow_plain_allowed: false,
        block_plain_allowed: false,
        single_quoted_allowed: !(break_space || space_break || special),
        block_allowed: !(trailing_space || space_break || special),
    }
}

/// How the analysis treats LS and PS (U+2028, U+2029).
#[derive(Clone, Copy, PartialEq, Eq)]
enum LineSeparators {
    /// As characters that only double quotes may hold (escaped), so that YAML 1.2 readers read
    /// the text back too.
    Escaped,
    /// As go-yaml does: line breaks.
    Breaks,
}

fn analyze_chars(
    value: &str,
    chars: impl Iterator<Item = char>,
    separators: LineSeparators,
) -> Analysis {
    let mut block_indicators = value.starts_with("---") || value.starts_with("...");
    // A trailing ` -` is read as the start of a new scalar before `,`/`]`/`}` by saphyr, so such
    // text is quoted inside flow collections.
    let mut flow_indicators = block_indicators || value.ends_with(" -") || value.ends_with("\t-");
    let mut line_breaks = false;
    let mut special_characters = false;
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let (mut previous_space, mut previous_break) = (false, false);
    let mut chars = chars.peekable();
    let mut first = true;
    while let Some(c) = chars.next() {
        let next = chars.peek().copied();
        let last = next.is_none();
        let followed_by_whitespace = next.is_none_or(|n| n == ' ' || n == '\t');
        if first {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                '?' | ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '-' if followed_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        } else {
            match c {
                ',' | '?' | '[' | ']' | '{' | '}' => flow_indicators = true,
                ':' => {
                    flow_indicators = true;
                    block_indicators |= followed_by_whitespace;
                }
                '#' if preceded_by_whitespace => {
                    flow_indicators = true;
                    block_indicators = true;
                }
                _ => {}
            }
        }
        // LS and PS are line breaks to go-yaml (YAML 1.1) but ordinary characters to YAML 1.2
        // readers such as ours; only an escape in double quotes reads the same everywhere.
        if !is_printable(c)
            || (separators == LineSeparators::Escaped && matches!(c, '\u{2028}' | '\u{2029}'))
        {
            special_characters = true;
        }
        if c == ' ' {
            if first {
                leading_space = true;
            }
            if last {
                trailing_space = true;
            }
            if previous_break {
                break_space = true;
            }
            previous_space = true;
            previous_break = false;
        } else if is_break_char(c) {
            line_breaks = true;
            if first {
                leading_break = true;
            }
            if last {
                trailing_break = true;
            }
            if previous_space {
                space_break = true;
            }
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t' | '\0') || is_break_char(c);
        first = false;
    }
    ScanFacts {
        line_breaks,
        special_characters,
        flow_indicators,
        block_indicators,
        leading_space,
        leading_break,
        trailing_space,
        trailing_break,
        break_space,
        space_break,
    }
    .analysis()
}

#[cfg(test)]
mod tests {
    #[test]
    fn documents_emitted_onto_one_buffer_read_as_each_emitted_alone() {
        let first = super::super::parse_stream(
            "kind: A\nmetadata: {name: a}\nlist: [1, two]\n",
            &Default::default(),
        );
        let second =
            super::super::parse_stream("z: |\n  text\n  more\na: ~\n", &Default::default());
        let (Ok(first), Ok(second)) = (first, second) else {
            panic!("test YAML parses");
        };
        let (a, b) = (&first[0].root, &second[0].root);
        let run =
            super::emit_canonical_kyaml_onto(b, super::emit_canonical_kyaml_onto(a, String::new()));
        assert_eq!(
            run,
            super::emit_canonical_kyaml(a) + &super::emit_canonical_kyaml(b)
        );
    }

    #[test]
    fn the_byte_analysis_agrees_with_the_character_analysis() {
        // Every string of up to four characters over the characters the analysis tells apart,
        // ordinary and special ones beyond ASCII among them.
        let alphabet: Vec<char> =
            " \t\n\r\0a-:#,?[]{}&*!|>'\"%@`.\u{7f}é’\u{a0}\u{85}\u{2028}\u{feff}\u{fffe}😀"
                .chars()
                .collect();
        let mut strings = vec![String::new()];
        let mut checked = 0;
        for _ in 0..4 {
            let mut longer = Vec::new();
            for s in &strings {
                for &c in &alphabet {
                    let t = format!("{s}{c}");
                    assert_eq!(
                        super::analyze(&t),
                        super::analyze_chars(&t, t.chars(), super::LineSeparators::Escaped),
                        "{t:?}"
                    );
                    checked += 1;
                    longer.push(t);
                }
            }
            strings = longer;
        }
        for t in [
            "---x",
            "...",
            "a -",
            "a\t-",
            "x: y",
            "a #b",
            "a#b",
            "long text\nwith  lines \n end",
            "café ’quoted’\n  más\u{a0}texto ",
        ] {
            assert_eq!(
                super::analyze(t),
                super::analyze_chars(t, t.chars(), super::LineSeparators::Escaped),
                "{t:?}"
            );
        }
        assert!(checked > 500_000);
    }
}
