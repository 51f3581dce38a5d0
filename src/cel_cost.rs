//! A bound on what evaluating a CEL expression may cost, checked before it runs. The `cel` crate
//! has no cost limit and no interrupt: a few hundred bytes of nested comprehensions over list
//! literals (`L.all(a, L.all(b, L.all(c, ...)))`) run for hours or allocate gigabytes. Kubernetes
//! estimates a rule's cost from its AST and refuses one past its limit; here the estimate uses the
//! sizes of the very values the expression is given, so a rule is judged on the object at hand.
//!
//! The estimate is an upper bound in abstract steps: every node costs one, a call also what it
//! may read or build (elements, and characters at a thousand a step), and a comprehension its
//! body once per element of its range. A variable holds at most as many elements as the largest
//! list or map in the inputs and as many characters as their longest string; a list literal's
//! size is its length, a concatenation's the sum, a replacement's the product, and
//! `lists.range(n)`'s `n` when written as a number (unbounded otherwise). A string that may grow
//! past [`LENGTH_LIMIT`] is refused whatever it costs.
//!
//! Not for: evaluating (the `cel` crate does), nor Kubernetes' own cost units.

use std::collections::BTreeMap;

use cel::common::ast::{EntryExpr, Expr, LiteralValue};
use cel::IdedExpr;

/// Ten times Kubernetes' per-call limit for a validation rule (`PerCallLimit`, 1e6), since these
/// steps also count every element a concatenation copies: under half a second of the `cel`
/// crate's evaluation at worst (a comprehension's iteration is about ten steps and 400 ns).
pub const COST_LIMIT: f64 = 1e7;

/// The longest string an expression may build: sixteen million characters, far past what an
/// object's field holds (the API server takes requests of 3 MB).
pub const LENGTH_LIMIT: f64 = 16e6;

/// Characters copied or compared per step: a step of the `cel` crate's evaluation costs about
/// what copying this many bytes does.
const CHARACTERS_PER_STEP: f64 = 1000.0;

/// The estimate of `expression` over inputs whose largest list or map holds `largest_input`
/// elements and whose longest string `longest_string` characters.
pub fn estimate(expression: &IdedExpr, largest_input: usize, longest_string: usize) -> f64 {
    let estimator = Estimator {
        largest: largest_input.max(1) as f64,
        longest: longest_string.max(1) as f64,
        peak_length: std::cell::Cell::new(0.0),
    };
    let cost = estimator.walk(expression, &BTreeMap::new()).cost;
    // A string built past the limit is refused whatever it costs to build.
    if estimator.peak_length.get() > LENGTH_LIMIT {
        return f64::INFINITY;
    }
    cost
}

/// Why `expression` is not evaluated over `inputs`: its estimate past [`COST_LIMIT`].
pub fn check(expression: &IdedExpr, inputs: &[&serde_json::Value]) -> Result<(), String> {
    let (largest, longest) = inputs
        .iter()
        .map(|v| input_bounds(v))
        .fold((0, 0), |(a, b), (c, d)| (a.max(c), b.max(d)));
    let cost = estimate(expression, largest, longest);
    if cost > COST_LIMIT {
        return Err(format!(
            "its estimated cost ({}) exceeds the limit of {COST_LIMIT:.0} steps (nested comprehensions over large lists, or strings grown past bounds)",
            if cost.is_finite() {
                format!("{cost:.0}")
            } else {
                "unbounded".to_owned()
            }
        ));
    }
    Ok(())
}

/// The number of elements of the largest list or map in `value` (what a comprehension over an
/// input may iterate), and the characters of its longest string or key.
pub fn input_bounds(value: &serde_json::Value) -> (usize, usize) {
    let (mut largest, mut longest) = (0, 0);
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            serde_json::Value::String(text) => longest = longest.max(text.chars().count()),
            serde_json::Value::Array(items) => {
                largest = largest.max(items.len());
                pending.extend(items);
            }
            serde_json::Value::Object(fields) => {
                largest = largest.max(fields.len());
                for (key, item) in fields {
                    longest = longest.max(key.chars().count());
                    pending.push(item);
                }
            }
            _ => {}
        }
    }
    (largest, longest)
}

/// What evaluating a node may cost, how many elements its value may hold, and how long it may be
/// as a string.
#[derive(Clone, Copy)]
struct Estimate {
    cost: f64,
    size: f64,
    length: f64,
}

impl Estimate {
    const SCALAR: Estimate = Estimate {
        cost: 1.0,
        size: 1.0,
        length: 1.0,
    };
}

struct Estimator {
    largest: f64,
    longest: f64,
    /// The longest string any node may build.
    peak_length: std::cell::Cell<f64>,
}

/// A variable's bounds: elements and characters.
type Scope<'a> = BTreeMap<&'a str, (f64, f64)>;

impl Estimator {
    fn any_input(&self, cost: f64) -> Estimate {
        Estimate {
            cost,
            size: self.largest,
            length: self.longest,
        }
    }

    fn walk(&self, node: &IdedExpr, scope: &Scope<'_>) -> Estimate {
        match &node.expr {
            Expr::Unspecified => Estimate::SCALAR,
            Expr::Literal(literal) => Estimate {
                length: match literal {
                    LiteralValue::String(text) => text.inner().chars().count().max(1) as f64,
                    LiteralValue::Bytes(bytes) => bytes.inner().len().max(1) as f64,
                    _ => 1.0,
                },
                ..Estimate::SCALAR
            },
            Expr::Ident(name) => match scope.get(name.as_str()) {
                Some(&(size, length)) => Estimate {
                    cost: 1.0,
                    size,
                    length,
                },
                None => self.any_input(1.0),
            },
            Expr::Select(select) => {
                let operand = self.walk(&select.operand, scope);
                self.any_input(operand.cost + 1.0)
            }
            Expr::List(list) => {
                let elements: Vec<Estimate> =
                    list.elements.iter().map(|e| self.walk(e, scope)).collect();
                Estimate {
                    cost: 1.0 + elements.iter().map(|e| e.cost).sum::<f64>(),
                    size: list.elements.len().max(1) as f64,
                    length: elements.iter().map(|e| e.length).fold(1.0, f64::max),
                }
            }
            Expr::Map(map) => self.entries(&map.entries, scope),
            Expr::Struct(structure) => self.entries(&structure.entries, scope),
            Expr::Call(call) => self.call(call, scope),
            Expr::Comprehension(comprehension) => {
                let range = self.walk(&comprehension.iter_range, scope);
                let init = self.walk(&comprehension.accu_init, scope);
                let mut inner = scope.clone();
                let element = (self.largest, self.longest.max(range.length));
                inner.insert(comprehension.iter_var.as_str(), element);
                if let Some(second) = &comprehension.iter_var2 {
                    inner.insert(second.as_str(), element);
                }
                // What `map` and `filter` gather grows to one element per iteration.
                inner.insert(
                    comprehension.accu_var.as_str(),
                    (init.size + range.size, init.length.max(element.1)),
                );
                let step = self.walk(&comprehension.loop_step, &inner);
                let condition = self.walk(&comprehension.loop_cond, &inner);
                let result = self.walk(&comprehension.result, &inner);
                Estimate {
                    cost: range.cost
                        + init.cost
                        + range.size * (step.cost + condition.cost)
                        + result.cost,
                    size: result.size,
                    length: result.length.max(step.length),
                }
            }
        }
    }

    fn entries(&self, entries: &[cel::common::ast::IdedEntryExpr], scope: &Scope<'_>) -> Estimate {
        let mut cost = 1.0;
        let mut length: f64 = 1.0;
        for entry in entries {
            let parts: Vec<&IdedExpr> = match &entry.expr {
                EntryExpr::StructField(field) => vec![&field.value],
                EntryExpr::MapEntry(map) => vec![&map.key, &map.value],
            };
            for part in parts {
                let estimate = self.walk(part, scope);
                cost += estimate.cost;
                length = length.max(estimate.length);
            }
        }
        Estimate {
            cost,
            size: entries.len().max(1) as f64,
            length,
        }
    }

    fn call(&self, call: &cel::common::ast::CallExpr, scope: &Scope<'_>) -> Estimate {
        let arguments: Vec<Estimate> = call
            .target
            .iter()
            .map(|t| self.walk(t, scope))
            .chain(call.args.iter().map(|a| self.walk(a, scope)))
            .collect();
        let costs: f64 = arguments.iter().map(|a| a.cost).sum();
        let sizes: f64 = arguments.iter().map(|a| a.size).sum();
        let lengths: f64 = arguments.iter().map(|a| a.length).sum();
        let first = arguments.first().copied().unwrap_or(Estimate::SCALAR);
        let last = arguments.last().copied().unwrap_or(Estimate::SCALAR);
        let function = match (&call.target, call.func_name.as_str()) {
            (Some(target), name) if matches!(&target.expr, Expr::Ident(t) if t == "lists") => {
                format!("lists.{name}")
            }
            (_, name) => name.to_owned(),
        };
        // (elements, characters) of the result, and the work besides the arguments' own: what
        // the function reads or builds.
        let characters = |n: f64| n / CHARACTERS_PER_STEP;
        let (size, length, work) = match function.as_str() {
            "_+_" => (sizes, lengths, sizes + characters(lengths)),
            "_?_:_" => {
                let branches = &arguments[1.min(arguments.len())..];
                (
                    branches.iter().map(|a| a.size).fold(1.0, f64::max),
                    branches.iter().map(|a| a.length).fold(1.0, f64::max),
                    1.0,
                )
            }
            "lists.range" => match call.args.first().map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::Int(n))) => {
                    let n = (*n.inner()).max(0) as f64;
                    (n, 1.0, n)
                }
                _ => (f64::INFINITY, 1.0, f64::INFINITY),
            },
            // Every occurrence (between every character, for an empty pattern) becomes the
            // replacement.
            "replace" => {
                let length = (first.length + 1.0) * (last.length + 1.0);
                (1.0, length, characters(length + lengths))
            }
            "join" => {
                let length = first.size * (first.length + last.length);
                (1.0, length, first.size + characters(length))
            }
            "split" => (first.length + 1.0, first.length, characters(first.length)),
            "flatten" => {
                let size = first.size * self.largest;
                (size, first.length, size)
            }
            "format" => {
                let length = first.length + last.size * self.longest;
                (1.0, length, last.size + characters(length))
            }
            "matches" | "contains" | "startsWith" | "endsWith" | "indexOf" | "lastIndexOf"
            | "_==_" | "_!=_" | "_<_" | "_<=_" | "_>_" | "_>=_" | "@in" => {
                (1.0, 1.0, sizes + characters(lengths))
            }
            "size"
            | "_&&_"
            | "_||_"
            | "!_"
            | "_-_"
            | "_*_"
            | "_/_"
            | "_%_"
            | "-_"
            | "int"
            | "uint"
            | "double"
            | "bool"
            | "type"
            | "duration"
            | "timestamp"
            | "has"
            | "@not_strictly_false" => (1.0, 1.0, 1.0),
            "substring" | "trim" | "lowerAscii" | "upperAscii" | "charAt" | "string"
            | "reverse" => (1.0, first.length, characters(first.length)),
            "quote" => (1.0, 2.0 * first.length + 2.0, characters(first.length)),
            "_[_]" => (self.largest, self.longest, 1.0),
            _ => {
                let size = sizes.max(self.largest);
                let length = lengths.max(self.longest);
                (size, length, size + characters(length))
            }
        };
        self.peak_length.set(self.peak_length.get().max(length));
        Estimate {
            cost: 1.0 + costs + work,
            size,
            length,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(source: &str, largest: usize) -> f64 {
        let program = cel::Program::compile(source).expect("compiles");
        estimate(program.expression(), largest, 10_000)
    }

    #[test]
    fn everyday_rules_are_cheap() {
        for rule in [
            "self.replicas >= 0",
            "self.all(x, x.size() < 64)",
            "has(self.spec) && self.spec.name.startsWith('a')",
            "dep.status.conditions.filter(c, c.type == 'Ready').all(c, c.status == 'True')",
            "self.map(x, x.name).exists(n, n == 'a')",
        ] {
            assert!(cost(rule, 500) < COST_LIMIT, "{rule}: {}", cost(rule, 500));
        }
    }

    #[test]
    fn nested_comprehensions_over_large_lists_are_refused() {
        let list = format!("[{}]", vec!["1"; 80].join(","));
        let nested = format!("{list}.all(a, {list}.all(b, {list}.all(c, {list}.all(d, a == b))))");
        assert!(cost(&nested, 10) > COST_LIMIT);
        let three = "self.all(a, self.all(b, self.all(c, a == b)))";
        assert!(cost(three, 400) > COST_LIMIT);
        assert!(cost(three, 10) < COST_LIMIT);
        assert!(cost("lists.range(self.n).all(x, x > 0)", 1).is_infinite());
        let one = serde_json::json!({"a": [1, 2, 3, 4], "b": "a long string"});
        assert_eq!(input_bounds(&one), (4, 13));
        // Strings grown by nested replacements (343 million characters at 700 each).
        let a = "a".repeat(700);
        let grown = format!("'{a}'.replace('a', '{a}'.replace('a', '{a}')).size() == 0");
        assert!(cost(&grown, 1) > COST_LIMIT, "{}", cost(&grown, 1));
        assert!(cost("self.name.replace('-', '_') == 'x'", 10) < COST_LIMIT);
    }
}
