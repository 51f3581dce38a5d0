//! Which `.Values` paths a chart's templates read, found by walking their syntax trees without
//! running them, and which keys of a user's values nothing reads (Helm ignores those silently).
//!
//! The analysis is conservative: wherever it cannot tell what a template reads, it takes the
//! whole subtree (or all of `.Values`) as read, so a key it reports is one no template can reach.
//! What counts as a read of path `p`, in the scope of the chart whose template it is:
//! - a field chain `.Values.p`, `$.Values.p`, `$root.Values.p`, `.ctx.Values.p` (a `Values`
//!   field anywhere in a chain is taken for a chart context's values), `.Subcharts.s.Values.p`
//!   (read as `s.p`);
//! - `index`, `get`, `dig`, `hasKey` and `pluck` with literal keys;
//! - a variable assigned from a values path (`$x := .Values.a`) and then used: `$x.b` reads
//!   `a.b`, `$x` passed anywhere reads `a` wholly;
//! - `with`/`range` over a values path, or any other use of one (an argument, a printed value,
//!   `include`'s argument) reads that path wholly; `.Values` itself used so reads everything;
//! - `deepCopy`, `omit`, `merge*` and `default` pass their values through to what uses their
//!   result, and `set _ "Values" x` (a library re-seating `.Values`) reads nothing itself.
//!
//! Named templates can be called from any chart with any chart's context (library charts are
//! only that), so what a `define` reads counts in every chart's scope; a template file's own body
//! counts in its chart's scope. A subchart's scope is `<alias or name>.` of its parent's. Helm
//! itself reads `global`, dependency conditions and `tags`; `import-values` read their subchart's
//! values wholly. Strings with `{{` in the chart's files and in the values (which `tpl` may run)
//! are read as templates too, in every scope.
//!
//! Not for: what a render actually read (this is static), `values.schema.json` (a schema reads
//! nothing).

use std::collections::{BTreeMap, HashMap};

use super::Chart;
use offlux_template::syntax::{Arg, Node, Pipe, Tree};
use offlux_template::{parse_trees, Value};

/// A path into values: the keys from the top.
pub type ValuesPath = Vec<String>;

/// The `.Values` paths a chart tree reads, in the scope of its root chart.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ValuesUsage {
    read: ReadTree,
    /// The scope of each chart of the tree (the root's is empty).
    scopes: Vec<ValuesPath>,
}

/// Read paths as a tree: a node is read wholly, or only in the children it has.
#[derive(Clone, Debug, Default, PartialEq)]
struct ReadTree {
    whole: bool,
    children: BTreeMap<String, ReadTree>,
}

impl ReadTree {
    fn mark(&mut self, path: &[String]) {
        let mut node = self;
        for key in path {
            if node.whole {
                return;
            }
            node = node.children.entry(key.clone()).or_default();
        }
        node.whole = true;
        node.children.clear();
    }
}

impl ValuesUsage {
    /// Analyses every template of `chart` and its subcharts.
    pub fn of(chart: &Chart) -> ValuesUsage {
        let mut scopes = Vec::new();
        collect_scopes(chart, Vec::new(), &mut scopes);
        let mut usage = ValuesUsage::default();
        let mut everywhere: Vec<ValuesPath> = Vec::new();
        for (scope, chart) in &scopes {
            let library = chart.metadata.is_library();
            for template in &chart.templates {
                let base = template.name.rsplit('/').next().unwrap_or(&template.name);
                let partial = base.starts_with('_') || library;
                let Ok(text) = std::str::from_utf8(&template.data) else {
                    continue;
                };
                let Ok(trees) = parse_trees(&template.name, text) else {
                    // A template that does not parse fails the render anyway; claim nothing.
                    usage.read.mark(&[]);
                    return usage;
                };
                for tree in &trees {
                    let reads = reads_of(tree);
                    if tree.name == template.name {
                        // Helm runs a file's own body only for non-partial files.
                        if !partial {
                            for path in reads {
                                usage.read.mark(&[scope.as_slice(), &path].concat());
                            }
                        }
                    } else {
                        everywhere.extend(reads);
                    }
                }
            }
            for file in &chart.files {
                if let Ok(text) = std::str::from_utf8(&file.data) {
                    everywhere.extend(reads_of_text(&file.name, text));
                }
            }
            strings_read(&chart.values, &mut everywhere);
            for dependency in &chart.metadata.dependencies {
                for condition in dependency.condition.split(',') {
                    let path: ValuesPath = condition
                        .trim()
                        .split('.')
                        .filter(|k| !k.is_empty())
                        .map(str::to_string)
                        .collect();
                    if !path.is_empty() {
                        usage.read.mark(&[scope.as_slice(), &path].concat());
                    }
                }
                usage
                    .read
                    .mark(&[scope.as_slice(), &["tags".to_string()]].concat());
                if !dependency.import_values.is_empty() {
                    for name in [&dependency.name, &dependency.alias] {
                        if !name.is_empty() {
                            usage
                                .read
                                .mark(&[scope.as_slice(), std::slice::from_ref(name)].concat());
                        }
                    }
                }
            }
            // Declared but not vendored: whatever its values are, the analysis cannot see them.
            for dependency in &chart.metadata.dependencies {
                if !chart
                    .dependencies
                    .iter()
                    .any(|d| d.name() == dependency.name)
                {
                    for name in [&dependency.name, &dependency.alias] {
                        if !name.is_empty() {
                            usage
                                .read
                                .mark(&[scope.as_slice(), std::slice::from_ref(name)].concat());
                        }
                    }
                }
            }
            usage
                .read
                .mark(&[scope.as_slice(), &["global".to_string()]].concat());
        }
        usage.scopes = scopes.into_iter().map(|(scope, _)| scope).collect();
        usage.mark_everywhere(&everywhere);
        usage
    }

    /// Marks `paths` read in every chart's scope.
    fn mark_everywhere(&mut self, paths: &[ValuesPath]) {
        for scope in &self.scopes {
            for path in paths {
                self.read.mark(&[scope.as_slice(), path].concat());
            }
        }
    }

    /// Whether the analysis found every value read (`.Values` used whole somewhere).
    pub fn reads_everything(&self) -> bool {
        self.read.whole
    }

    /// The keys of `user` (a values map) that nothing reads, depth first, each the topmost unread
    /// key of its branch. A key the chart's own defaults (`defaults`, the coalesced `values.yaml`
    /// of the chart and its subcharts) also hold is taken as read: it is most likely consumed in
    /// a way the analysis does not see. `null` values only delete keys and are never reported.
    pub fn unread_keys(&self, chart: &Chart, user: &Value) -> Vec<ValuesPath> {
        let mut out = Vec::new();
        let Value::Map(user) = user else {
            return out;
        };
        if self.read.whole {
            return out;
        }
        // The user's own strings may be templates that `tpl` runs.
        let mut from_strings = Vec::new();
        strings_read(&Value::Map(user.clone()), &mut from_strings);
        let widened;
        let usage = if from_strings.is_empty() {
            self
        } else {
            let mut copy = self.clone();
            copy.mark_everywhere(&from_strings);
            widened = copy;
            &widened
        };
        if usage.read.whole {
            return out;
        }
        let defaults = defaults_of(chart);
        let mut path = Vec::new();
        unread(user, &usage.read, Some(&defaults), &mut path, &mut out);
        out
    }
}

/// [`ValuesUsage::of`] then [`ValuesUsage::unread_keys`], for a single question.
pub fn unread_keys(chart: &Chart, user: &Value) -> Vec<ValuesPath> {
    ValuesUsage::of(chart).unread_keys(chart, user)
}

fn unread(
    user: &BTreeMap<String, Value>,
    read: &ReadTree,
    defaults: Option<&Value>,
    path: &mut ValuesPath,
    out: &mut Vec<ValuesPath>,
) {
    for (key, value) in user {
        if matches!(value, Value::Nil) {
            continue;
        }
        let default = match defaults {
            Some(Value::Map(map)) => map.get(key),
            _ => None,
        };
        path.push(key.clone());
        match read.children.get(key) {
            Some(node) if node.whole => {}
            Some(node) => {
                if let Value::Map(inner) = value {
                    unread(inner, node, default, path, out);
                }
            }
            None if default.is_some() => {}
            None => out.push(path.clone()),
        }
        path.pop();
    }
}

/// Each chart of the tree with its scope: the keys under which its values sit in the root's.
fn collect_scopes<'a>(chart: &'a Chart, scope: ValuesPath, out: &mut Vec<(ValuesPath, &'a Chart)>) {
    for dependency in &chart.dependencies {
        for name in scope_names(chart, dependency) {
            let mut inner = scope.clone();
            inner.push(name);
            collect_scopes(dependency, inner, out);
        }
    }
    out.push((scope, chart));
}

/// The keys a subchart's values sit under in its parent's: its name, and every alias the parent
/// gives it.
fn scope_names(parent: &Chart, dependency: &Chart) -> Vec<String> {
    let mut names = vec![dependency.name().to_string()];
    for declared in &parent.metadata.dependencies {
        if declared.name == dependency.name()
            && !declared.alias.is_empty()
            && !names.contains(&declared.alias)
        {
            names.push(declared.alias.clone());
        }
    }
    names
}

/// The chart's defaults with each subchart's under its scope names (parents' keys first).
fn defaults_of(chart: &Chart) -> Value {
    let mut out = chart.values.clone();
    for dependency in &chart.dependencies {
        let child = defaults_of(dependency);
        for name in scope_names(chart, dependency) {
            if let Value::Map(map) = &mut out {
                let slot = std::sync::Arc::make_mut(map)
                    .entry(name)
                    .or_insert_with(|| Value::map(BTreeMap::new()));
                fill(slot, &child);
            }
        }
    }
    out
}

/// Adds the keys of `from` missing in `into`, recursively.
fn fill(into: &mut Value, from: &Value) {
    let (Value::Map(into), Value::Map(from)) = (into, from) else {
        return;
    };
    let into = std::sync::Arc::make_mut(into);
    for (key, value) in from.iter() {
        match into.get_mut(key) {
            Some(existing) => fill(existing, value),
            None => {
                into.insert(key.clone(), value.clone());
            }
        }
    }
}

/// Reads by strings in `values` that look like templates (`tpl` may run them).
fn strings_read(values: &Value, out: &mut Vec<ValuesPath>) {
    match values {
        Value::String(text) => out.extend(reads_of_text("values", text)),
        Value::List(items) => items.iter().for_each(|v| strings_read(v, out)),
        Value::Map(map) => map.values().for_each(|v| strings_read(v, out)),
        _ => {}
    }
}

/// The reads of a text that may be a template: parsed when it parses, else scanned for
/// `.Values.a.b` chains.
fn reads_of_text(name: &str, text: &str) -> Vec<ValuesPath> {
    if !text.contains("{{") {
        return Vec::new();
    }
    match parse_trees(name, text) {
        Ok(trees) => trees.iter().flat_map(reads_of).collect(),
        Err(_) => scan_values_chains(text),
    }
}

/// Every `Values.a.b` in `text` (as `a.b`), for texts that do not parse as templates.
fn scan_values_chains(text: &str) -> Vec<ValuesPath> {
    let mut out = Vec::new();
    for (at, _) in text.match_indices("Values.") {
        let rest = &text[at + "Values.".len()..];
        let end = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '.'))
            .unwrap_or(rest.len());
        let path: ValuesPath = rest[..end]
            .split('.')
            .take_while(|k| !k.is_empty())
            .map(str::to_string)
            .collect();
        if !path.is_empty() {
            out.push(path);
        }
    }
    out
}

// ---------------------------------------------------------------------------------------------
// One template tree.

/// What an expression evaluates to, as far as values go: paths into `.Values` (one per source
/// it may come from), or nothing known to be values.
type Refs = Vec<ValuesPath>;

/// Functions whose result is (a copy or merge of) their values arguments: using their result is
/// using those values; calling them reads nothing.
const PASS_THROUGH: &[&str] = &[
    "deepCopy",
    "mustDeepCopy",
    "omit",
    "merge",
    "mustMerge",
    "mergeOverwrite",
    "mustMergeOverwrite",
    "default",
];

struct Walk {
    reads: Vec<ValuesPath>,
    /// Variables holding values: the paths they were assigned from.
    variables: HashMap<String, Refs>,
}

/// The paths one tree reads, relative to its chart's `.Values` (an empty path: everything).
fn reads_of(tree: &Tree) -> Vec<ValuesPath> {
    let mut walk = Walk {
        reads: Vec::new(),
        variables: HashMap::new(),
    };
    walk.nodes(&tree.root);
    walk.reads
}

impl Walk {
    fn nodes(&mut self, nodes: &[Node]) {
        for node in nodes {
            match node {
                Node::Text(_) | Node::Break | Node::Continue => {}
                Node::Action(pipe) => self.statement(pipe),
                Node::If(branch) | Node::With(branch) | Node::Range(branch) => {
                    let refs = self.pipe(&branch.pipe);
                    self.use_all(refs);
                    self.nodes(&branch.list);
                    if let Some(list) = &branch.else_list {
                        self.nodes(list);
                    }
                }
                Node::Template { pipe, .. } => {
                    if let Some(pipe) = pipe {
                        let refs = self.pipe(pipe);
                        self.use_all(refs);
                    }
                }
            }
        }
    }

    /// An action: a declaration keeps its values in the variable; anything else uses them.
    fn statement(&mut self, pipe: &Pipe) {
        let refs = self.pipe(pipe);
        if pipe.decl.is_empty() {
            self.use_all(refs);
            return;
        }
        for name in &pipe.decl {
            if refs.is_empty() {
                continue;
            }
            self.variables
                .entry(name.clone())
                .or_default()
                .extend(refs.iter().cloned());
        }
    }

    /// Using values wholly: each path (and everything under it) is read.
    fn use_all(&mut self, refs: Refs) {
        self.reads.extend(refs);
    }

    /// A pipeline: each command's result is the last argument of the next.
    fn pipe(&mut self, pipe: &Pipe) -> Refs {
        let mut previous: Option<Refs> = None;
        for command in &pipe.cmds {
            previous = Some(self.command(&command.args, previous));
        }
        let refs = previous.unwrap_or_default();
        // `range $k, $v := .Values.x`: the variables hold elements, used as `x` wholly.
        if pipe.decl.len() > 1 {
            self.use_all(refs);
            return Vec::new();
        }
        refs
    }

    fn command(&mut self, args: &[Arg], piped: Option<Refs>) -> Refs {
        let Some(first) = args.first() else {
            return piped.unwrap_or_default();
        };
        let Arg::Identifier { name, .. } = first else {
            // An operand alone (`.Values.a`, `$x`, `(pipe).b`): its value is the result.
            let refs = self.arg(first);
            if let Some(piped) = piped {
                self.use_all(piped);
            }
            return refs;
        };
        let rest = &args[1..];
        let literal = |arg: &Arg| match arg {
            Arg::String { text, .. } => Some(text.clone()),
            _ => None,
        };
        let mut operands: Vec<Refs> = rest.iter().map(|a| self.arg(a)).collect();
        let literals: Vec<Option<String>> = rest.iter().map(literal).collect();
        if let Some(piped) = piped {
            operands.push(piped);
        }
        let operand_count = operands.len();
        match name.as_str() {
            n if PASS_THROUGH.contains(&n) => operands.into_iter().flatten().collect(),
            // `index X "a" "b"`: X.a.b; a key that is no literal makes X read wholly.
            "index" if !rest.is_empty() => {
                let mut operands = operands.into_iter();
                let target = operands.next().unwrap_or_default();
                self.keyed(target, literals.get(1..).unwrap_or_default(), operands)
            }
            // `get X "a"`, `hasKey X "a"`: X.a.
            "get" | "hasKey" if operand_count == 2 => {
                let mut operands = operands.into_iter();
                let target = operands.next().unwrap_or_default();
                let key = literals.get(1).cloned().unwrap_or_default();
                let refs = self.keyed(target, &[key], operands);
                if name == "hasKey" {
                    self.use_all(refs);
                    return Vec::new();
                }
                refs
            }
            // `dig "a" "b" default X`: X.a.b.
            "dig" if operand_count >= 3 => {
                let keys = literals.get(..operand_count - 2).unwrap_or_default();
                let mut operands: Vec<Refs> = operands;
                let target = operands.pop().unwrap_or_default();
                self.keyed(target, keys, operands.into_iter())
            }
            // `pluck "a" X Y`: X.a, Y.a.
            "pluck" if operand_count >= 2 => {
                let key = literals.first().cloned().unwrap_or_default();
                let mut operands = operands.into_iter();
                let key_refs = operands.next().unwrap_or_default();
                self.use_all(key_refs);
                let mut out = Vec::new();
                for target in operands {
                    out.extend(self.keyed(target, std::slice::from_ref(&key), std::iter::empty()));
                }
                out
            }
            // A library re-seating `.Values` (`set . "Values" $merged`) reads nothing itself.
            "set" if literals.get(1).and_then(|k| k.as_deref()) == Some("Values") => {
                let mut operands = operands.into_iter();
                let target = operands.next().unwrap_or_default();
                self.use_all(target);
                Vec::new()
            }
            _ => {
                for refs in operands {
                    self.use_all(refs);
                }
                Vec::new()
            }
        }
    }

    /// `target` followed by literal `keys` (a key that is no literal stops there, reading the
    /// prefix wholly); the other operands are used.
    fn keyed(
        &mut self,
        target: Refs,
        keys: &[Option<String>],
        others: impl Iterator<Item = Refs>,
    ) -> Refs {
        for refs in others {
            self.use_all(refs);
        }
        let literal: Option<Vec<String>> = keys.iter().cloned().collect();
        match literal {
            Some(keys) => target
                .into_iter()
                .map(|path| [path, keys.clone()].concat())
                .collect(),
            None => {
                self.use_all(target);
                Vec::new()
            }
        }
    }

    /// The values an operand stands for.
    fn arg(&mut self, arg: &Arg) -> Refs {
        match arg {
            Arg::Field { idents, .. } => values_chain(idents).into_iter().collect(),
            Arg::Variable { idents, .. } => {
                if let Some(path) = values_chain(idents.get(1..).unwrap_or_default()) {
                    return vec![path];
                }
                let name = idents.first().map(String::as_str).unwrap_or_default();
                let fields = idents.get(1..).unwrap_or_default();
                match self.variables.get(name) {
                    Some(refs) => refs
                        .iter()
                        .map(|path| [path.as_slice(), fields].concat())
                        .collect(),
                    None => Vec::new(),
                }
            }
            Arg::Chain { node, fields, .. } => {
                if let Some(path) = values_chain(fields) {
                    // `(pipe).Values.a`: the pipe's own values are used too.
                    let inner = self.arg(node);
                    self.use_all(inner);
                    return vec![path];
                }
                self.arg(node)
                    .into_iter()
                    .map(|path| [path, fields.clone()].concat())
                    .collect()
            }
            Arg::Pipe { pipe, .. } => self.pipe(pipe),
            Arg::Identifier { .. }
            | Arg::Dot { .. }
            | Arg::Nil { .. }
            | Arg::Bool { .. }
            | Arg::Number { .. }
            | Arg::String { .. } => Vec::new(),
        }
    }
}

/// The values path a field chain names: what follows its first `Values` field, or `s.` and
/// what follows for `Subcharts.s.Values`.
fn values_chain(idents: &[String]) -> Option<ValuesPath> {
    let at = idents.iter().position(|i| i == "Values")?;
    let mut path = Vec::new();
    if at >= 2 && idents[at - 2] == "Subcharts" {
        path.push(idents[at - 1].clone());
    }
    path.extend(idents[at + 1..].iter().cloned());
    Some(path)
}

#[cfg(test)]
mod tests;
