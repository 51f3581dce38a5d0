//! A bound on what evaluating a CEL expression may cost, checked before it runs. The `cel` crate
//! has no cost limit and no interrupt: a few hundred bytes of nested comprehensions over list
//! literals (`L.all(a, L.all(b, L.all(c, ...)))`) run for hours or allocate gigabytes. Kubernetes
//! estimates a rule's cost from its AST and refuses one past its limit; here the estimate uses the
//! sizes of the very values the expression is given, so a rule is judged on the object at hand.
//!
//! The estimate is an upper bound in abstract steps: every node costs one, a call also the sizes
//! of its arguments (what it may read or copy), and a comprehension its body once per element of
//! its range. A variable's size (elements) is at most that of the largest list or map in the
//! inputs; a list literal's is its length; a concatenation's the sum; `lists.range(n)` is `n`
//! when written as a number and unbounded otherwise.
//!
//! Not for: evaluating (the `cel` crate does), nor Kubernetes' own cost units.

use std::collections::BTreeMap;

use cel::common::ast::{EntryExpr, Expr, LiteralValue};
use cel::IdedExpr;

/// Ten times Kubernetes' per-call limit for a validation rule (`PerCallLimit`, 1e6), since these
/// steps also count every element a concatenation copies: under half a second of the `cel`
/// crate's evaluation at worst (a comprehension's iteration is about ten steps and 400 ns).
pub const COST_LIMIT: f64 = 1e7;

/// The estimate of `expression` over inputs whose largest list or map holds `largest_input`
/// elements.
pub fn estimate(expression: &IdedExpr, largest_input: usize) -> f64 {
    let estimator = Estimator {
        largest: largest_input.max(1) as f64,
    };
    estimator.walk(expression, &BTreeMap::new()).cost
}

/// Why `expression` is not evaluated over `inputs`: its estimate past [`COST_LIMIT`].
pub fn check(expression: &IdedExpr, inputs: &[&serde_json::Value]) -> Result<(), String> {
    let largest = inputs
        .iter()
        .map(|v| largest_collection(v))
        .max()
        .unwrap_or(0);
    let cost = estimate(expression, largest);
    if cost > COST_LIMIT {
        return Err(format!(
            "its estimated cost ({}) exceeds the limit of {COST_LIMIT:.0} steps (nested comprehensions over large lists)",
            if cost.is_finite() {
                format!("{cost:.0}")
            } else {
                "unbounded".to_owned()
            }
        ));
    }
    Ok(())
}

/// The number of elements of the largest list or map in `value`: what a comprehension over an
/// input may iterate (strings are not iterated; what is done to one is linear in it).
pub fn largest_collection(value: &serde_json::Value) -> usize {
    let mut largest = 0;
    let mut pending = vec![value];
    while let Some(value) = pending.pop() {
        match value {
            serde_json::Value::Array(items) => {
                largest = largest.max(items.len());
                pending.extend(items);
            }
            serde_json::Value::Object(fields) => {
                largest = largest.max(fields.len());
                pending.extend(fields.values());
            }
            _ => {}
        }
    }
    largest
}

/// What evaluating a node may cost, and how large its value may be.
#[derive(Clone, Copy)]
struct Estimate {
    cost: f64,
    size: f64,
}

struct Estimator {
    largest: f64,
}

impl Estimator {
    fn walk(&self, node: &IdedExpr, scope: &BTreeMap<&str, f64>) -> Estimate {
        match &node.expr {
            Expr::Unspecified => Estimate {
                cost: 1.0,
                size: 1.0,
            },
            Expr::Literal(_) => Estimate {
                cost: 1.0,
                size: 1.0,
            },
            Expr::Ident(name) => Estimate {
                cost: 1.0,
                size: scope.get(name.as_str()).copied().unwrap_or(self.largest),
            },
            Expr::Select(select) => {
                let operand = self.walk(&select.operand, scope);
                Estimate {
                    cost: operand.cost + 1.0,
                    size: self.largest.max(operand.size),
                }
            }
            Expr::List(list) => {
                let elements: Vec<Estimate> =
                    list.elements.iter().map(|e| self.walk(e, scope)).collect();
                Estimate {
                    cost: 1.0 + elements.iter().map(|e| e.cost).sum::<f64>(),
                    size: list.elements.len().max(1) as f64,
                }
            }
            Expr::Map(map) => self.entries(&map.entries, scope),
            Expr::Struct(structure) => self.entries(&structure.entries, scope),
            Expr::Call(call) => self.call(call, scope),
            Expr::Comprehension(comprehension) => {
                let range = self.walk(&comprehension.iter_range, scope);
                let init = self.walk(&comprehension.accu_init, scope);
                let mut inner = scope.clone();
                inner.insert(
                    comprehension.iter_var.as_str(),
                    self.largest.max(range.size),
                );
                if let Some(second) = &comprehension.iter_var2 {
                    inner.insert(second.as_str(), self.largest.max(range.size));
                }
                // What `map` and `filter` gather grows to one element per iteration.
                inner.insert(comprehension.accu_var.as_str(), init.size + range.size);
                let step = self.walk(&comprehension.loop_step, &inner);
                let condition = self.walk(&comprehension.loop_cond, &inner);
                let result = self.walk(&comprehension.result, &inner);
                Estimate {
                    cost: range.cost
                        + init.cost
                        + range.size * (step.cost + condition.cost)
                        + result.cost,
                    size: result.size,
                }
            }
        }
    }

    fn entries(
        &self,
        entries: &[cel::common::ast::IdedEntryExpr],
        scope: &BTreeMap<&str, f64>,
    ) -> Estimate {
        let mut cost = 1.0;
        for entry in entries {
            let parts: Vec<&IdedExpr> = match &entry.expr {
                EntryExpr::StructField(field) => vec![&field.value],
                EntryExpr::MapEntry(map) => vec![&map.key, &map.value],
            };
            for part in parts {
                cost += self.walk(part, scope).cost;
            }
        }
        Estimate {
            cost,
            size: entries.len().max(1) as f64,
        }
    }

    fn call(&self, call: &cel::common::ast::CallExpr, scope: &BTreeMap<&str, f64>) -> Estimate {
        let arguments: Vec<Estimate> = call
            .target
            .iter()
            .map(|t| self.walk(t, scope))
            .chain(call.args.iter().map(|a| self.walk(a, scope)))
            .collect();
        let sizes: f64 = arguments.iter().map(|a| a.size).sum();
        let largest_argument = arguments.iter().map(|a| a.size).fold(1.0, f64::max);
        let function = match (&call.target, call.func_name.as_str()) {
            (Some(target), name) if matches!(&target.expr, Expr::Ident(t) if t == "lists") => {
                format!("lists.{name}")
            }
            (_, name) => name.to_owned(),
        };
        let size = match function.as_str() {
            "_+_" => sizes,
            "_?_:_" => arguments.iter().skip(1).map(|a| a.size).fold(1.0, f64::max),
            "lists.range" => match call.args.first().map(|a| &a.expr) {
                Some(Expr::Literal(LiteralValue::Int(n))) => (*n.inner()).max(0) as f64,
                _ => f64::INFINITY,
            },
            // Each element may be as long as the largest input.
            "join" | "flatten" => largest_argument * self.largest,
            "replace" => sizes * sizes,
            "size"
            | "contains"
            | "startsWith"
            | "endsWith"
            | "matches"
            | "_==_"
            | "_!=_"
            | "_<_"
            | "_<=_"
            | "_>_"
            | "_>=_"
            | "_&&_"
            | "_||_"
            | "!_"
            | "@in"
            | "_-_"
            | "_*_"
            | "_/_"
            | "_%_"
            | "-_"
            | "indexOf"
            | "lastIndexOf"
            | "int"
            | "uint"
            | "double"
            | "bool"
            | "type"
            | "duration"
            | "timestamp"
            | "has"
            | "@not_strictly_false" => 1.0,
            _ => sizes.max(self.largest),
        };
        Estimate {
            cost: 1.0 + arguments.iter().map(|a| a.cost).sum::<f64>() + sizes + size,
            size,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cost(source: &str, largest: usize) -> f64 {
        let program = cel::Program::compile(source).expect("compiles");
        estimate(program.expression(), largest)
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
        assert_eq!(largest_collection(&one), 4);
    }
}
