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
    let _ = reread_then(node, &mut |_, _, _| Ok::<(), ()>(()));
}

/// `reread`, handing each scalar to `then` as soon as it is reread, with whether it is a key and
/// whether it is a plain word (see [`is_plain_word`]; reread leaves those plain, as they were): one
/// walk over the tree for callers that go on to change every scalar. Stops at `then`'s first error.
pub fn reread_then<E>(
    node: &mut Node,
    then: &mut impl FnMut(&mut Scalar, bool, bool) -> Result<(), E>,
) -> Result<(), E> {
    match node {
        Node::Scalar(s) => {
            let word = reread_scalar(s, false);
            then(s, false, word)?;
        }
        Node::Sequence(seq) => {
            for item in &mut seq.items {
                reread_then(item, then)?;
            }
            seq.style = printed_collection_style(seq.items.is_empty());
            seq.tag = None;
        }
        Node::Mapping(map) => {
            for entry in &mut map.entries {
                let word = reread_scalar(&mut entry.key, true);
                then(&mut entry.key, true, word)?;
                reread_then(&mut entry.value, then)?;
            }
            map.style = printed_collection_style(map.entries.is_empty());
            map.tag = None;
        }
    }
    Ok(())
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

/// Rereads one scalar; true when it is a plain word.
fn reread_scalar(scalar: &mut Scalar, is_key: bool) -> bool {
    if scalar.tag.is_none() && is_plain_word(&scalar.value) {
        scalar.style = ScalarStyle::Plain;
        return true;
    }
    let (text, style) = printed_scalar(scalar, is_key);
    // Only nulls and booleans are printed in another spelling (`null`, `true`, `false`).
    if text != scalar.value {
        scalar.value = text.into();
    }
    scalar.style = style;
    scalar.tag = None;
    false
}

fn printed_collection_style(empty: bool) -> CollectionStyle {
    if empty {
        CollectionStyle::Flow
    } else {
        CollectionStyle::Block
    }
}
