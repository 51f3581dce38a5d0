//! A tree as bytes and back, everything kept (scalar text, quoting and collection styles, tags,
//! positions): for a tree stored to be read again by the same program (a cache), and for a digest
//! of a tree that tells apart everything a reader of it could see.
//!
//! The reading is for bytes this program wrote: it is bounded all the same (each length checked
//! against what is left, nesting at [`MAX_DEPTH`]), and a text that does not read gives `None`,
//! never a panic.
//!
//! Not for: exchange with other programs (the form is this crate's, with no promise between its
//! versions).

use compact_str::CompactString;

use crate::node::{CollectionStyle, Entry, Mapping, Node, Pos, Scalar, ScalarStyle, Sequence, Tag};

/// Deeper trees do not read (the parser stops well before, at `ParseOptions::max_depth`).
pub const MAX_DEPTH: usize = 1024;

const SCALAR: u8 = 0;
const SEQUENCE: u8 = 1;
const MAPPING: u8 = 2;

/// Appends `node` to `out`.
pub fn encode_node(node: &Node, out: &mut Vec<u8>) {
    match node {
        Node::Scalar(scalar) => {
            out.push(SCALAR);
            encode_scalar(scalar, out);
        }
        Node::Sequence(sequence) => {
            out.push(SEQUENCE);
            out.push(collection_style(sequence.style));
            encode_tag(sequence.tag.as_ref(), out);
            encode_pos(sequence.pos, out);
            encode_len(sequence.items.len(), out);
            for item in &sequence.items {
                encode_node(item, out);
            }
        }
        Node::Mapping(mapping) => {
            out.push(MAPPING);
            out.push(collection_style(mapping.style));
            encode_tag(mapping.tag.as_ref(), out);
            encode_pos(mapping.pos, out);
            encode_len(mapping.entries.len(), out);
            for entry in &mapping.entries {
                encode_scalar(&entry.key, out);
                encode_node(&entry.value, out);
            }
        }
    }
}

/// Appends `text`, its length first.
pub fn encode_str(text: &str, out: &mut Vec<u8>) {
    encode_len(text.len(), out);
    out.extend_from_slice(text.as_bytes());
}

/// Appends `value` (8 bytes, little-endian).
pub fn encode_u64(value: u64, out: &mut Vec<u8>) {
    out.extend_from_slice(&value.to_le_bytes());
}

/// Appends a count or a length (8 bytes, little-endian).
pub fn encode_len(len: usize, out: &mut Vec<u8>) {
    encode_u64(len as u64, out);
}

fn encode_scalar(scalar: &Scalar, out: &mut Vec<u8>) {
    out.push(match scalar.style {
        ScalarStyle::Plain => 0,
        ScalarStyle::SingleQuoted => 1,
        ScalarStyle::DoubleQuoted => 2,
        ScalarStyle::Literal => 3,
        ScalarStyle::Folded => 4,
    });
    encode_tag(scalar.tag.as_ref(), out);
    encode_pos(scalar.pos, out);
    encode_str(&scalar.value, out);
}

fn collection_style(style: CollectionStyle) -> u8 {
    match style {
        CollectionStyle::Block => 0,
        CollectionStyle::Flow => 1,
    }
}

fn encode_tag(tag: Option<&Tag>, out: &mut Vec<u8>) {
    match tag {
        None => out.push(0),
        Some(tag) => {
            out.push(1);
            encode_str(tag, out);
        }
    }
}

fn encode_pos(pos: Pos, out: &mut Vec<u8>) {
    out.extend_from_slice(&pos.line.to_le_bytes());
    out.extend_from_slice(&pos.column.to_le_bytes());
}

/// Reads what the `encode_*` functions wrote, front to back.
pub struct Decoder<'a> {
    bytes: &'a [u8],
}

impl<'a> Decoder<'a> {
    pub fn new(bytes: &'a [u8]) -> Self {
        Decoder { bytes }
    }

    /// Whether everything was read.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    pub fn node(&mut self) -> Option<Node> {
        self.node_at(0)
    }

    pub fn str(&mut self) -> Option<&'a str> {
        let len = self.len()?;
        std::str::from_utf8(self.take(len)?).ok()
    }

    pub fn u64(&mut self) -> Option<u64> {
        let bytes = self.take(8)?;
        Some(u64::from_le_bytes(bytes.try_into().ok()?))
    }

    /// A count or a length, never more than the bytes left (each counted thing takes at least
    /// one byte), so no reading allocates more than its input.
    pub fn len(&mut self) -> Option<usize> {
        let len = usize::try_from(self.u64()?).ok()?;
        (len <= self.bytes.len()).then_some(len)
    }

    pub fn u8(&mut self) -> Option<u8> {
        let (&first, rest) = self.bytes.split_first()?;
        self.bytes = rest;
        Some(first)
    }

    /// The next `len` bytes.
    pub fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        if len > self.bytes.len() {
            return None;
        }
        let (taken, rest) = self.bytes.split_at(len);
        self.bytes = rest;
        Some(taken)
    }

    fn node_at(&mut self, depth: usize) -> Option<Node> {
        if depth >= MAX_DEPTH {
            return None;
        }
        match self.u8()? {
            SCALAR => self.scalar().map(Node::Scalar),
            SEQUENCE => {
                let style = self.collection_style()?;
                let tag = self.tag()?;
                let pos = self.pos()?;
                let count = self.len()?;
                let mut items = Vec::with_capacity(count);
                for _ in 0..count {
                    items.push(self.node_at(depth + 1)?);
                }
                Some(Node::Sequence(Sequence {
                    items,
                    style,
                    tag,
                    pos,
                }))
            }
            MAPPING => {
                let style = self.collection_style()?;
                let tag = self.tag()?;
                let pos = self.pos()?;
                let count = self.len()?;
                let mut entries = Vec::with_capacity(count);
                for _ in 0..count {
                    let key = self.scalar()?;
                    let value = self.node_at(depth + 1)?;
                    entries.push(Entry { key, value });
                }
                Some(Node::Mapping(Mapping {
                    entries,
                    style,
                    tag,
                    pos,
                }))
            }
            _ => None,
        }
    }

    fn scalar(&mut self) -> Option<Scalar> {
        let style = match self.u8()? {
            0 => ScalarStyle::Plain,
            1 => ScalarStyle::SingleQuoted,
            2 => ScalarStyle::DoubleQuoted,
            3 => ScalarStyle::Literal,
            4 => ScalarStyle::Folded,
            _ => return None,
        };
        let tag = self.tag()?;
        let pos = self.pos()?;
        let value = CompactString::from(self.str()?);
        Some(Scalar {
            value,
            style,
            tag,
            pos,
        })
    }

    fn collection_style(&mut self) -> Option<CollectionStyle> {
        match self.u8()? {
            0 => Some(CollectionStyle::Block),
            1 => Some(CollectionStyle::Flow),
            _ => None,
        }
    }

    fn tag(&mut self) -> Option<Option<Tag>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(Tag::new(self.str()?))),
            _ => None,
        }
    }

    fn pos(&mut self) -> Option<Pos> {
        let line = u32::from_le_bytes(self.take(4)?.try_into().ok()?);
        let column = u32::from_le_bytes(self.take(4)?.try_into().ok()?);
        Some(Pos { line, column })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{parse_stream, ParseOptions};

    fn round_trip(text: &str) {
        let documents = parse_stream(text, &ParseOptions::default()).unwrap();
        let mut bytes = Vec::new();
        for document in &documents {
            encode_node(&document.root, &mut bytes);
        }
        let mut decoder = Decoder::new(&bytes);
        for document in &documents {
            assert_eq!(decoder.node().as_ref(), Some(&*document.root));
        }
        assert!(decoder.is_empty());
    }

    #[test]
    fn a_tree_reads_back_with_its_styles_tags_and_positions() {
        round_trip(
            "a: 1\nb: 'two'\nc: \"three\"\nd: |\n  four\ne: >\n  five\nf: [1, {g: h}]\n\
             i: !custom x\nj: !!str 7\nk:\n  - l\n  - m: n\n---\n[]\n---\nplain\n",
        );
    }

    #[test]
    fn bytes_cut_short_or_altered_do_not_read() {
        let documents = parse_stream("a:\n  b: [c, d]\n", &ParseOptions::default()).unwrap();
        let mut bytes = Vec::new();
        encode_node(&documents[0].root, &mut bytes);
        for len in 0..bytes.len() {
            assert_eq!(Decoder::new(&bytes[..len]).node(), None, "cut at {len}");
        }
        let mut altered = bytes.clone();
        altered[0] = 9;
        assert_eq!(Decoder::new(&altered).node(), None);
        // A count far beyond what is left is refused before anything is allocated for it.
        let mut huge = vec![SEQUENCE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
        huge.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(Decoder::new(&huge).node(), None);
    }

    #[test]
    fn nesting_beyond_the_limit_does_not_read() {
        let mut bytes = Vec::new();
        for _ in 0..MAX_DEPTH + 1 {
            bytes.extend_from_slice(&[SEQUENCE, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
            bytes.extend_from_slice(&1u64.to_le_bytes());
        }
        encode_node(&Node::null(), &mut bytes);
        assert_eq!(Decoder::new(&bytes).node(), None);
    }
}
