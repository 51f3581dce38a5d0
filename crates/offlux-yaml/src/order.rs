//! go-yaml v2's order of mapping keys (`keyList.Less`), which `kustomize build`, Helm's `toYaml`
//! and `toYamlPretty` (go-yaml v3 has the same order) print maps in: runs of digits compare as
//! int64 numbers (wrapping as Go's do), and a non-letter sorts before a letter.
//!
//! Not for: anything but ordering keys.

use std::cmp::Ordering;

use super::node::Node;

/// Sorts every mapping's keys, recursively, in go-yaml v2's order: runs of digits compare as
/// numbers and a non-letter sorts before a letter (`a9` < `a10`, `_A` < `A_`).
pub fn sort_keys(node: &mut Node) {
    match node {
        Node::Scalar(_) => {}
        Node::Sequence(s) => s.items.iter_mut().for_each(sort_keys),
        Node::Mapping(m) => {
            m.entries
                .sort_by(|a, b| go_yaml_v2_key_order(&a.key.value, &b.key.value));
            m.entries.iter_mut().for_each(|e| sort_keys(&mut e.value));
        }
    }
}

/// go-yaml v2's `keyList.Less` for string keys, as a total order.
pub fn go_yaml_v2_key_order(a: &str, b: &str) -> Ordering {
    // The first character where the keys differ; a prefix sorts first.
    let Some(byte) = a.bytes().zip(b.bytes()).position(|(x, y)| x != y) else {
        return a.len().cmp(&b.len());
    };
    // After equal bytes both keys have a character boundary at the same places.
    let at = (0..=byte)
        .rev()
        .find(|&i| a.is_char_boundary(i))
        .unwrap_or(0);
    let first = |key: &str| {
        key.get(at..)
            .and_then(|k| k.chars().next())
            .unwrap_or_default()
    };
    v2_order_at(a, b, at, first(a), first(b))
}

/// The order of two keys that first differ at byte `at` (the same in both, after an equal
/// prefix), with `ca` and `cb` the differing characters.
fn v2_order_at(a: &str, b: &str, at: usize, ca: char, cb: char) -> Ordering {
    let al = ca.is_alphabetic();
    let bl = cb.is_alphabetic();
    if al && bl {
        return ca.cmp(&cb);
    }
    if al || bl {
        // A non-letter sorts before a letter.
        return if bl {
            Ordering::Less
        } else {
            Ordering::Greater
        };
    }
    // Digit runs compare as numbers. A zero after other digits is part of a number, not a leading
    // zero, so go-yaml starts both numbers at 1 there (which keeps `a10` after `a1`).
    let mut start = 0i64;
    if ca == '0' || cb == '0' {
        let before = a.get(..at).unwrap_or_default().bytes().rev();
        if before.take_while(u8::is_ascii_digit).any(|c| c != b'0') {
            start = 1;
        }
    }
    let number = |key: &str| -> (i64, usize) {
        let run = key.get(at..).unwrap_or_default().bytes();
        run.take_while(u8::is_ascii_digit)
            .fold((start, 0), |(n, len), d| {
                (
                    n.wrapping_mul(10).wrapping_add(i64::from(d - b'0')),
                    len + 1,
                )
            })
    };
    let (an, alen) = number(a);
    let (bn, blen) = number(b);
    an.cmp(&bn).then(alen.cmp(&blen)).then(ca.cmp(&cb))
}

#[cfg(test)]
mod tests {
    #[test]
    fn keys_sort_in_go_yaml_v2_order() {
        let mut keys = ["a10", "A_", "_A", "a9", "é", "a1", "x01", "x1", "z", "a1"];
        keys.sort_by(|a, b| super::go_yaml_v2_key_order(a, b));
        assert_eq!(
            keys,
            ["_A", "A_", "a1", "a1", "a9", "a10", "x1", "x01", "z", "é"]
        );
    }

    #[test]
    fn digit_runs_wrap_as_go_int64s() {
        // 10000000000000000000 overflows int64 and wraps negative, so it sorts before `a2`, as
        // in go-yaml (and so in Helm and kustomize).
        let mut keys = ["a2", "a10000000000000000000"];
        keys.sort_by(|a, b| super::go_yaml_v2_key_order(a, b));
        assert_eq!(keys, ["a10000000000000000000", "a2"]);
    }
}
