//! What reading [`super::emit`]'s output back gives, worked out without printing and parsing:
//! every scalar with the text and quoting the emitter prints it in, tags dropped (the canonical
//! form prints none), collections in block style unless empty (printed as `[]` and `{}`).
//!
//! Positions are kept from the input tree; a real round trip would give positions in the printed
//! text, which point nowhere useful.

use super::emit::printed_scalar;
use super::node::{CollectionStyle, Node, Scalar, ScalarStyle};
use super::resolve::is_plain_word;

/// Turns `node` into `parse_stream(&emit(node))`'s single document, positions aside.
pub fn reread(node: &mut Node) {
    match node {
        Node::Scalar(s) => reread_scalar(s, false),
        Node::Sequence(seq) => {
            seq.items.iter_mut().for_each(reread);
            seq.style = printed_collection_style(seq.items.is_empty());
            seq.tag = None;
        }
        Node::Mapping(map) => {
            for entry in &mut map.entries {
                reread_scalar(&mut entry.key, true);
                reread(&mut entry.value);
            }
            map.style = printed_collection_style(map.entries.is_empty());
            map.tag = None;
        }
    }
}

/// The text and style `reread` gives a scalar that is a mapping value or a sequence item.
pub fn reread_value(scalar: &Scalar) -> (&str, ScalarStyle) {
    reread_text(scalar, false)
}

fn reread_text(scalar: &Scalar, is_key: bool) -> (&str, ScalarStyle) {
    // What `printed_scalar` works out at length, for the commonest scalars.
    if scalar.tag.is_none() && is_plain_word(&scalar.value) {
        return (&scalar.value, ScalarStyle::Plain);
    }
    printed_scalar(scalar, is_key)
}

fn reread_scalar(scalar: &mut Scalar, is_key: bool) {
    let (text, style) = reread_text(scalar, is_key);
    // Only nulls and booleans are printed in another spelling (`null`, `true`, `false`).
    if text != scalar.value {
        scalar.value = text.to_owned();
    }
    scalar.style = style;
    scalar.tag = None;
}

fn printed_collection_style(empty: bool) -> CollectionStyle {
    if empty {
        CollectionStyle::Flow
    } else {
        CollectionStyle::Block
    }
}
