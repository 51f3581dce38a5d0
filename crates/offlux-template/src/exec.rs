//! The executor of Go's text/template: walks parsed trees against data with Go's semantics
//! (missing keys, nil handling, truth, variables, range over lists/maps/ints, break/continue, the
//! builtin functions and their type rules) and reports errors in Go's format:
//! `template: NAME:LINE:COL: executing "NAME" at <NODE>: MESSAGE`.
//! Helm's executor-level functions (`include`, `tpl`, `required`) are here too, enabled per set.

use std::collections::HashMap;
use std::rc::Rc;

use super::funcs::FuncEnv;
use super::gofmt::{self, format_v, quote};
use super::parse::{Arg, Branch, Command, Node, Number, Pipe, Tree};
use super::value::Value;
use super::{Error, ExecErrorKind, ExecOptions, Location, MissingKey, Set};

/// An evaluated value; `None` is Go's invalid `reflect.Value` (a missing value), which prints as
/// `<no value>`, while `Some(Value::Nil)` is a nil interface (field access on it is an error).
type Ev = Option<Rc<Value>>;

static NIL: Value = Value::Nil;

fn ev(v: Value) -> Ev {
    Some(Rc::new(v))
}

/// A function argument: the invalid value becomes nil, as Go's validateType does for interfaces.
fn to_value(e: Ev) -> Value {
    e.map(Rc::unwrap_or_clone).unwrap_or(Value::Nil)
}

fn borrowed(args: &[Ev]) -> Vec<Option<&Value>> {
    args.iter().map(|e| e.as_deref()).collect()
}

/// Why a walk stopped early.
enum Flow {
    Break,
    Continue,
    Err(Error),
}

impl From<Error> for Flow {
    fn from(e: Error) -> Self {
        Flow::Err(e)
    }
}

type R<T> = Result<T, Flow>;

/// State shared by the whole execution, across `template`, `include` and `tpl` calls.
pub(crate) struct Ctx<'e> {
    pub opts: &'e ExecOptions,
    pub env: &'e mut FuncEnv,
    /// Steps taken so far (see `ExecOptions::max_steps`).
    pub steps: u64,
    pub depth: usize,
    pub include_counts: HashMap<String, usize>,
    pub written: usize,
    pub chain: Vec<String>,
}

/// A template variable. `alias` records that it was declared as a path into another variable's
/// map (`$x := $.a.b`, or `:= .a.b` while dot is `$`), so that changing the map through `$x`
/// changes it there too, as Go's shared maps do.
struct Var {
    name: String,
    value: Ev,
    /// The index of the aliased (earlier) variable and the path inside it.
    alias: Option<(usize, Vec<String>)>,
}

impl Var {
    fn new(name: &str, value: Ev) -> Var {
        Var {
            name: name.to_string(),
            value,
            alias: None,
        }
    }
}

/// One template invocation: where its nodes come from and its variables.
struct Frame<'a> {
    set: &'a Set,
    tree: &'a Tree,
    name: &'a str,
    vars: Vec<Var>,
    /// Whether dot is still the template's argument (the value `$` holds), not a with/range value.
    dot_is_root: bool,
    /// Where a with/range dot lives inside a variable (map keys and list indexes), so that `set`
    /// on it, or on a variable declared from it, changes the map there too.
    dot_alias: Option<(usize, Vec<String>)>,
}

const BUILTINS: &[&str] = &[
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
    "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];
const HELM_BUILTINS: &[&str] = &["include", "tpl", "required"];

pub(crate) fn is_builtin(name: &str, helm: bool) -> bool {
    BUILTINS.contains(&name) || (helm && HELM_BUILTINS.contains(&name))
}

/// Runs template `name` of `set` with `data` as dot, appending to `out`.
pub(crate) fn execute(
    ctx: &mut Ctx<'_>,
    set: &Set,
    name: &str,
    data: Ev,
    out: &mut String,
) -> Result<Ev, Error> {
    let Some(tree) = set.trees.get(name) else {
        let msg = if name == set.name {
            format!(
                "template: {name}: {} is an incomplete or empty template",
                quote(name)
            )
        } else {
            format!(
                "template: no template {} associated with template {}",
                quote(name),
                quote(&set.name)
            )
        };
        return Err(Error::exec(
            ExecErrorKind::UndefinedTemplate,
            msg,
            ctx.chain.clone(),
        ));
    };
    execute_tree(ctx, set, name, tree, data, out)
}

/// Runs `tree` as template `name` of `set` (whose other templates it may call).
fn execute_tree(
    ctx: &mut Ctx<'_>,
    set: &Set,
    name: &str,
    tree: &Tree,
    mut data: Ev,
    out: &mut String,
) -> Result<Ev, Error> {
    let mut frame = Frame {
        set,
        tree,
        name,
        vars: vec![Var::new("$", data.clone())],
        dot_is_root: true,
        dot_alias: None,
    };
    ctx.chain.push(name.to_string());
    let r = walk_list(ctx, &mut frame, &mut data, &tree.root, out);
    ctx.chain.pop();
    // The final `$`: a map the template changed with `set` and friends, for the caller to keep.
    let root = frame.vars.first().and_then(|v| v.value.clone());
    match r {
        Ok(()) => Ok(root),
        Err(Flow::Err(e)) => Err(e),
        Err(_) => Err(frame.error(ctx, 0, "", "break or continue outside range")),
    }
}

impl Frame<'_> {
    /// An execution error at `pos` (a byte offset in the tree's text) with `context` (the node).
    fn error(&self, ctx: &Ctx<'_>, pos: usize, context: &str, msg: &str) -> Error {
        let text = &self.tree.text;
        let pos = pos.min(text.len());
        let before = text.get(..pos).unwrap_or("");
        let line = 1 + before.matches('\n').count();
        let col = match before.rfind('\n') {
            Some(i) => pos - i - 1,
            None => pos,
        };
        let msg = format!(
            "template: {}:{}:{}: executing {} at <{}>: {}",
            self.tree.parse_name,
            line,
            col,
            quote(self.name),
            context,
            msg
        );
        let template = self.tree.parse_name.clone();
        let location = Location {
            template,
            line,
            column: Some(col),
        };
        Error::exec_at(msg, ctx.chain.clone(), location)
    }

    fn var(&self, name: &str) -> Option<&Ev> {
        self.vars
            .iter()
            .rev()
            .find(|v| v.name == name)
            .map(|v| &v.value)
    }

    fn var_mut(&mut self, name: &str) -> Option<&mut Var> {
        self.vars.iter_mut().rev().find(|v| v.name == name)
    }

    fn var_index(&self, name: &str) -> Option<usize> {
        self.vars.iter().rposition(|v| v.name == name)
    }

    fn set_var(&mut self, name: &str, v: Ev) {
        if let Some(slot) = self.var_mut(name) {
            slot.value = v;
            slot.alias = None;
        }
    }
}

/// What a call of function `name` with `args` costs in steps besides the one every call takes.
/// Key generation, certificates and password hashing take from milliseconds to seconds each (an
/// RSA-4096 key one to two seconds), so each counts as many steps as the executor takes in that
/// time (10 to 30 million steps a second): a template that calls `genPrivateKey` in a loop meets
/// the step cap about as soon as one that loops on nothing. With the default cap, one execution
/// makes one RSA key (or eight certificates); more needs `--max-template-steps`.
pub(crate) fn extra_cost(name: &str, args: &[Value]) -> u64 {
    match name {
        "genPrivateKey" => match args.first() {
            Some(Value::String(kind)) if kind == "ecdsa" || kind == "ed25519" => 10_000,
            _ => 12_000_000,
        },
        "genCA" | "genSelfSignedCert" | "genSignedCert" | "derivePassword" => 2_500_000,
        "bcrypt" | "htpasswd" => 1_000_000,
        "genCAWithKey"
        | "genSelfSignedCertWithKey"
        | "genSignedCertWithKey"
        | "buildCustomCert" => 50_000,
        _ => 0,
    }
}

/// Counts `n` steps at `pos` (the node `context`): an error once past `max_steps`, or when the
/// run has been cancelled.
fn step(
    ctx: &mut Ctx<'_>,
    fr: &Frame<'_>,
    n: u64,
    pos: usize,
    context: &dyn Fn() -> String,
) -> R<()> {
    ctx.steps = ctx.steps.saturating_add(n);
    if ctx.steps > ctx.opts.max_steps {
        let exceeded = offlux_budget::Exceeded {
            resource: offlux_budget::Resource::TemplateSteps,
            limit: ctx.opts.max_steps,
        };
        let e = fr.error(ctx, pos, &context(), &exceeded.to_string());
        return Err(e.with_kind(ExecErrorKind::StepLimit).into());
    }
    if ctx
        .opts
        .run
        .as_deref()
        .is_some_and(|run| run.is_cancelled())
    {
        let e = fr.error(ctx, pos, &context(), "cancelled");
        return Err(e.with_kind(ExecErrorKind::Cancelled).into());
    }
    Ok(())
}

fn write(ctx: &mut Ctx<'_>, frame: &Frame<'_>, out: &mut String, s: &str) -> R<()> {
    ctx.written += s.len();
    if ctx.written > ctx.opts.max_output {
        let msg = format!("output exceeds the limit of {} bytes", ctx.opts.max_output);
        return Err(Error::exec(
            ExecErrorKind::OutputLimit,
            format!("template: {}: {msg}", frame.name),
            ctx.chain.clone(),
        )
        .into());
    }
    out.push_str(s);
    Ok(())
}

fn walk_list(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    nodes: &[Node],
    out: &mut String,
) -> R<()> {
    for n in nodes {
        walk(ctx, fr, dot, n, out)?;
    }
    Ok(())
}

fn walk(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    node: &Node,
    out: &mut String,
) -> R<()> {
    match node {
        Node::Text(t) => write(ctx, fr, out, t),
        Node::Action(pipe) => {
            step(ctx, fr, 1, pipe.pos, &|| pipe.to_string())?;
            let v = eval_pipeline(ctx, fr, dot, pipe)?;
            if pipe.decl.is_empty() {
                let s = match &v {
                    None => "<no value>".to_string(),
                    Some(v) => format_v(v),
                };
                write(ctx, fr, out, &s)?;
            }
            Ok(())
        }
        Node::If(b) | Node::With(b) | Node::Range(b) => {
            step(ctx, fr, 1, b.pipe.pos, &|| b.pipe.to_string())?;
            match node {
                Node::If(_) => walk_if_with(ctx, fr, dot, b, false, out),
                Node::With(_) => walk_if_with(ctx, fr, dot, b, true, out),
                _ => walk_range(ctx, fr, dot, b, out),
            }
        }
        Node::Template { pos, name, pipe } => {
            step(ctx, fr, 1, *pos, &|| {
                format!("{{{{template {}}}}}", quote(name))
            })?;
            walk_template(ctx, fr, dot, *pos, name, pipe.as_ref(), out)
        }
        Node::Break => Err(Flow::Break),
        Node::Continue => Err(Flow::Continue),
    }
}

fn truth(v: &Ev) -> bool {
    v.as_deref().is_some_and(Value::is_truthy)
}

fn walk_if_with(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    b: &Branch,
    with: bool,
    out: &mut String,
) -> R<()> {
    let mark = fr.vars.len();
    let r = (|| {
        let alias = if with && b.pipe.decl.is_empty() {
            alias_of(fr, &b.pipe)
        } else {
            None
        };
        let v = eval_pipeline(ctx, fr, dot, &b.pipe)?;
        if truth(&v) {
            if with {
                let mut v = v;
                let was_root = std::mem::replace(&mut fr.dot_is_root, false);
                let was_alias = std::mem::replace(&mut fr.dot_alias, alias);
                let r = walk_list(ctx, fr, &mut v, &b.list, out);
                fr.dot_is_root = was_root;
                fr.dot_alias = was_alias;
                r
            } else {
                walk_list(ctx, fr, dot, &b.list, out)
            }
        } else if let Some(e) = &b.else_list {
            walk_list(ctx, fr, dot, e, out)
        } else {
            Ok(())
        }
    })();
    fr.vars.truncate(mark);
    sync_root_dot(fr, dot);
    r
}

fn walk_range(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    b: &Branch,
    out: &mut String,
) -> R<()> {
    let outer = fr.vars.len();
    let r = walk_range_inner(ctx, fr, dot, b, out);
    fr.vars.truncate(outer);
    sync_root_dot(fr, dot);
    r
}

/// Where dot is `$`, takes over changes made to `$` from inside a range or with body.
fn sync_root_dot(fr: &Frame<'_>, dot: &mut Ev) {
    if !fr.dot_is_root {
        return;
    }
    if let Some(Var {
        value: Some(root), ..
    }) = fr.vars.first()
    {
        if !dot.as_ref().is_some_and(|d| Rc::ptr_eq(d, root)) {
            *dot = Some(root.clone());
        }
    }
}

fn walk_range_inner(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    b: &Branch,
    out: &mut String,
) -> R<()> {
    let undeclared_alias = if b.pipe.decl.is_empty() {
        alias_of(fr, &b.pipe)
    } else {
        None
    };
    let val = eval_pipeline(ctx, fr, dot, &b.pipe)?;
    let mark = fr.vars.len();
    type Items = Box<dyn Iterator<Item = (Rc<Value>, Rc<Value>)>>;
    let mut items: Items = Box::new(std::iter::empty());
    // Where the ranged collection lives, so that `set` on an element changes it there too.
    let coll_alias = match (b.pipe.is_assign, fr.vars.last_mut()) {
        (false, Some(var)) if !b.pipe.decl.is_empty() => var.alias.take(),
        _ => undeclared_alias,
    };
    if !b.pipe.is_assign && b.pipe.decl.len() > 1 {
        if let Some(var) = fr
            .vars
            .len()
            .checked_sub(2)
            .and_then(|i| fr.vars.get_mut(i))
        {
            var.alias = None;
        }
    }
    // Take the elements without copying them when nothing else holds the ranged value.
    match val.map(Rc::unwrap_or_clone) {
        None => {}
        Some(Value::List(l)) => {
            items = Box::new(
                l.into_iter()
                    .enumerate()
                    .map(|(i, v)| (Rc::new(Value::Int(i as i64)), Rc::new(v))),
            )
        }
        Some(Value::Map(m)) => {
            items = Box::new(
                std::sync::Arc::unwrap_or_clone(m)
                    .into_iter()
                    .map(|(k, v)| (Rc::new(Value::String(k)), Rc::new(v))),
            )
        }
        Some(Value::Int(n)) => {
            if b.pipe.decl.len() > 1 {
                let msg = format!("can't use {n} to iterate over more than one variable");
                return Err(fr.error(ctx, b.pipe.pos, &b.pipe.to_string(), &msg).into());
            }
            // Made one at a time: `range 1000000000` must meet the step cap, not allocate.
            items =
                Box::new((0..n.max(0)).map(|i| (Rc::new(Value::Int(i)), Rc::new(Value::Int(i)))));
        }
        Some(v) => {
            let msg = format!("range can't iterate over {}", format_v(&v));
            return Err(fr.error(ctx, b.pipe.pos, &b.pipe.to_string(), &msg).into());
        }
    }
    let mut items = items.peekable();
    if items.peek().is_none() {
        if let Some(e) = &b.else_list {
            return walk_list(ctx, fr, dot, e, out);
        }
        return Ok(());
    }
    for (index, elem) in items {
        step(ctx, fr, 1, b.pipe.pos, &|| b.pipe.to_string())?;
        let decl = &b.pipe.decl;
        let elem_alias = coll_alias.as_ref().and_then(|(i, path)| {
            let step = match &*index {
                Value::String(k) => k.clone(),
                Value::Int(n) => n.to_string(),
                _ => return None,
            };
            Some((*i, path.iter().cloned().chain([step]).collect::<Vec<_>>()))
        });
        if let Some(first) = decl.first() {
            if b.pipe.is_assign {
                if decl.len() > 1 {
                    fr.set_var(first, Some(index.clone()));
                } else {
                    fr.set_var(first, Some(elem.clone()));
                }
            } else if let Some(slot) = fr
                .vars
                .len()
                .checked_sub(1)
                .and_then(|i| fr.vars.get_mut(i))
            {
                slot.value = Some(elem.clone());
                slot.alias = elem_alias.clone();
            }
        }
        if let Some(second) = decl.get(1) {
            if b.pipe.is_assign {
                fr.set_var(second, Some(elem.clone()));
            } else if let Some(slot) = fr
                .vars
                .len()
                .checked_sub(2)
                .and_then(|i| fr.vars.get_mut(i))
            {
                slot.value = Some(index.clone());
            }
        }
        let was_root = std::mem::replace(&mut fr.dot_is_root, false);
        let was_alias = std::mem::replace(&mut fr.dot_alias, elem_alias);
        let r = walk_list(ctx, fr, &mut Some(elem), &b.list, out);
        fr.dot_is_root = was_root;
        fr.dot_alias = was_alias;
        fr.vars.truncate(mark);
        match r {
            Ok(()) | Err(Flow::Continue) => {}
            Err(Flow::Break) => break,
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

fn walk_template(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    pos: usize,
    name: &str,
    pipe: Option<&Pipe>,
    out: &mut String,
) -> R<()> {
    let context = match pipe {
        Some(p) => format!("{{{{template {} {p}}}}}", quote(name)),
        None => format!("{{{{template {}}}}}", quote(name)),
    };
    let set = fr.set;
    let Some(tree) = set.trees.get(name) else {
        let msg = format!("template {} not defined", quote(name));
        return Err(fr.error(ctx, pos, &context, &msg).into());
    };
    if ctx.depth >= ctx.opts.max_depth {
        let msg = format!("exceeded maximum template depth ({})", ctx.opts.max_depth);
        return Err(fr.error(ctx, pos, &context, &msg).into());
    }
    let new_dot = match pipe {
        Some(p) => eval_pipeline(ctx, fr, dot, p)?,
        None => None,
    };
    let mut frame = Frame {
        set,
        tree,
        name,
        vars: vec![Var::new("$", new_dot.clone())],
        dot_is_root: true,
        dot_alias: None,
    };
    ctx.depth += 1;
    ctx.chain.push(name.to_string());
    let passed = new_dot.clone();
    let mut new_dot = new_dot;
    let r = walk_list(ctx, &mut frame, &mut new_dot, &tree.root, out);
    ctx.chain.pop();
    ctx.depth -= 1;
    r?;
    // A map the called template changed is the caller's too, as with Go's shared maps.
    let root = frame.vars.first().and_then(|v| v.value.clone());
    if let (Some(changed), Some(p)) = (changed_root(&passed, &root), pipe) {
        if let ([cmd], true) = (p.cmds.as_slice(), p.decl.is_empty()) {
            if let [arg] = cmd.args.as_slice() {
                write_back(fr, dot, arg, &changed);
            }
        }
    }
    Ok(())
}

fn eval_pipeline(ctx: &mut Ctx<'_>, fr: &mut Frame<'_>, dot: &mut Ev, pipe: &Pipe) -> R<Ev> {
    let mut value: Option<Ev> = None;
    for cmd in &pipe.cmds {
        let v = eval_command(ctx, fr, dot, cmd, value.take())?;
        // A nil interface result becomes "no value", as Go's evalPipeline does.
        value = Some(match v {
            v if matches!(v.as_deref(), Some(Value::Nil)) => None,
            v => v,
        });
    }
    let value = value.unwrap_or(None);
    for name in &pipe.decl {
        if pipe.is_assign {
            fr.set_var(name, value.clone());
        } else {
            let alias = alias_of(fr, pipe);
            fr.vars.push(Var {
                name: name.clone(),
                value: value.clone(),
                alias,
            });
        }
    }
    Ok(value)
}

/// The variable path a declaration's value comes from, when it is a plain `$v.a.b` or (with dot
/// being `$`) `.a.b`.
fn alias_of(fr: &Frame<'_>, pipe: &Pipe) -> Option<(usize, Vec<String>)> {
    let [cmd] = pipe.cmds.as_slice() else {
        return None;
    };
    match cmd.args.as_slice() {
        [source] => alias_of_arg(fr, source),
        // Go's `set`, `merge`... return the map they changed, and `index` the map inside: the
        // declared variable shares it (`$m := set $m "k" v` inside a nested scope).
        [Arg::Identifier { name, .. }, source, ..] if super::funcs::mutates_first_arg(name) => {
            alias_of_arg(fr, source)
        }
        [Arg::Identifier { name, .. }, source, keys @ ..]
            if name == "index" && !keys.is_empty() =>
        {
            let (var, mut path) = alias_of_arg(fr, source)?;
            for key in keys {
                match key {
                    Arg::String { text, .. } => path.push(text.clone()),
                    Arg::Variable { idents, .. } if idents.len() == 1 => {
                        let value = fr.var(&idents[0])?.as_deref()?;
                        let Value::String(text) = value else {
                            return None;
                        };
                        path.push(text.clone());
                    }
                    _ => return None,
                }
            }
            Some((var, path))
        }
        _ => None,
    }
}

fn alias_of_arg(fr: &Frame<'_>, arg: &Arg) -> Option<(usize, Vec<String>)> {
    match arg {
        Arg::Variable { idents, .. } => {
            let (name, path) = idents.split_first()?;
            Some((fr.var_index(name)?, path.to_vec()))
        }
        Arg::Field { idents, .. } if fr.dot_is_root => Some((0, idents.clone())),
        Arg::Dot { .. } if fr.dot_is_root => Some((0, Vec::new())),
        Arg::Field { idents, .. } => {
            let (var, path) = fr.dot_alias.clone()?;
            Some((
                var,
                path.into_iter().chain(idents.iter().cloned()).collect(),
            ))
        }
        Arg::Dot { .. } => fr.dot_alias.clone(),
        _ => None,
    }
}

fn not_a_function(ctx: &Ctx<'_>, fr: &Frame<'_>, cmd: &Command, has_final: bool) -> R<()> {
    if cmd.args.len() > 1 || has_final {
        let (pos, first) = cmd
            .args
            .first()
            .map(|a| (a.pos(), a.to_string()))
            .unwrap_or_default();
        let msg = format!("can't give argument to non-function {first}");
        return Err(fr.error(ctx, pos, &first, &msg).into());
    }
    Ok(())
}

fn eval_command(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    cmd: &Command,
    final_: Option<Ev>,
) -> R<Ev> {
    let Some(first) = cmd.args.first() else {
        return Ok(None);
    };
    let has_args = cmd.args.len() > 1 || final_.is_some();
    // Arguments of a method call (`.Files.Get "x"`) are evaluated before the receiver chain.
    let is_chain = matches!(first, Arg::Field { .. } | Arg::Chain { .. })
        || matches!(first, Arg::Variable { idents, .. } if idents.len() > 1);
    let margs = if is_chain && has_args && fr.set.methods.is_some() {
        eval_value_args(ctx, fr, dot, cmd, final_.clone())?
    } else {
        Vec::new()
    };
    match first {
        Arg::Field { pos, idents } => {
            return eval_field_chain(
                ctx,
                fr,
                dot.as_deref(),
                *pos,
                &first.to_string(),
                idents,
                has_args.then_some(&margs[..]),
            );
        }
        Arg::Chain { .. } => {
            return eval_chain(ctx, fr, dot, first, has_args.then_some(&margs[..]))
        }
        Arg::Identifier { pos, name } => {
            return eval_function(ctx, fr, dot, *pos, name, cmd, final_)
        }
        Arg::Pipe { pipe, .. } => {
            not_a_function(ctx, fr, cmd, final_.is_some())?;
            return eval_pipeline(ctx, fr, dot, pipe);
        }
        Arg::Variable { pos, idents } => {
            let v = var_value(ctx, fr, *pos, idents)?;
            if idents.len() == 1 {
                not_a_function(ctx, fr, cmd, final_.is_some())?;
                return Ok(v);
            }
            return eval_field_chain(
                ctx,
                fr,
                v.as_deref(),
                *pos,
                &first.to_string(),
                &idents[1..],
                has_args.then_some(&margs[..]),
            );
        }
        _ => {}
    }
    not_a_function(ctx, fr, cmd, final_.is_some())?;
    match first {
        Arg::Bool { value, .. } => Ok(ev(Value::Bool(*value))),
        Arg::Dot { .. } => Ok(dot.clone()),
        Arg::Nil { pos } => Err(fr.error(ctx, *pos, "nil", "nil is not a command").into()),
        Arg::Number { pos, num } => ideal_constant(ctx, fr, *pos, num).map(ev),
        Arg::String { text, .. } => Ok(ev(Value::String(text.clone()))),
        _ => Ok(None),
    }
}

fn ideal_constant(ctx: &Ctx<'_>, fr: &Frame<'_>, pos: usize, num: &Number) -> R<Value> {
    let t = &num.text;
    let lower = t.to_ascii_lowercase();
    let is_hex_int = lower.starts_with("0x") && !lower.contains('p');
    let is_rune = t.starts_with('\'');
    if num.is_complex {
        return Ok(Value::Complex(num.complex.0, num.complex.1));
    }
    if num.is_float && !is_hex_int && !is_rune && t.contains(['.', 'e', 'E', 'p', 'P']) {
        return Ok(Value::Float(num.float));
    }
    if num.is_int {
        return Ok(Value::Int(num.int));
    }
    if num.is_uint {
        return Err(fr.error(ctx, pos, t, &format!("{t} overflows int")).into());
    }
    Ok(Value::Nil)
}

fn var_value(ctx: &Ctx<'_>, fr: &Frame<'_>, pos: usize, idents: &[String]) -> R<Ev> {
    let name = idents.first().map(String::as_str).unwrap_or("$");
    match fr.var(name) {
        Some(v) => Ok(v.clone()),
        None => Err(fr
            .error(ctx, pos, name, &format!("undefined variable: {name}"))
            .into()),
    }
}

/// Walks `.a.b.c` from `receiver`, borrowing until the final value, which is cloned.
fn eval_field_chain(
    ctx: &mut Ctx<'_>,
    fr: &Frame<'_>,
    receiver: Option<&Value>,
    pos: usize,
    context: &str,
    idents: &[String],
    call: Option<&[Value]>,
) -> R<Ev> {
    // `call` is Some when the chain is a command's first word given arguments (evaluated only
    // when methods are enabled).
    let has_args = call.is_some();
    let args = call.unwrap_or(&[]);
    let mut cur = receiver;
    for (i, name) in idents.iter().enumerate() {
        let last = i + 1 == idents.len();
        // A method supplied by the caller, tried where Go would find no field or map key.
        let method = |ctx: &mut Ctx<'_>, recv: &Value| -> R<Option<Ev>> {
            let Some(m) = fr.set.methods else {
                return Ok(None);
            };
            let margs = if last { args } else { &[] };
            match m(ctx.env, recv, name, margs) {
                None => Ok(None),
                Some(Err(e)) => {
                    let msg = format!("error calling {name}: {}", e.0);
                    Err(fr.error(ctx, pos, context, &msg).into())
                }
                Some(Ok(v)) if last => Ok(Some(ev(v))),
                Some(Ok(v)) => {
                    let rest = idents.get(i + 1..).unwrap_or(&[]);
                    eval_field_chain(ctx, fr, Some(&v), pos, context, rest, call).map(Some)
                }
            }
        };
        if let Some(r) = cur.filter(|r| !matches!(r, Value::Nil)) {
            let is_key = matches!(r, Value::Map(m) if m.contains_key(name));
            if !is_key || (last && has_args) {
                if let Some(v) = method(ctx, r)? {
                    return Ok(v);
                }
            }
        }
        cur = match cur {
            None => {
                if ctx.opts.missing_key == MissingKey::Error {
                    let msg = format!("nil data; no entry for key {}", quote(name));
                    return Err(fr.error(ctx, pos, context, &msg).into());
                }
                return Ok(None);
            }
            Some(Value::Map(m)) => {
                if last && has_args {
                    let msg = format!("{name} is not a method but has arguments");
                    return Err(fr.error(ctx, pos, context, &msg).into());
                }
                match m.get(name) {
                    Some(v) => Some(v),
                    None => match ctx.opts.missing_key {
                        MissingKey::Default => None,
                        MissingKey::Zero => Some(&NIL),
                        MissingKey::Error => {
                            let msg = format!("map has no entry for key {}", quote(name));
                            return Err(fr.error(ctx, pos, context, &msg).into());
                        }
                    },
                }
            }
            Some(Value::Nil) => {
                let msg = format!("nil pointer evaluating interface {{}}.{name}");
                return Err(fr.error(ctx, pos, context, &msg).into());
            }
            Some(other) => {
                let msg = format!(
                    "can't evaluate field {name} in type {}",
                    other.go_type_name()
                );
                return Err(fr.error(ctx, pos, context, &msg).into());
            }
        };
    }
    Ok(cur.map(|v| Rc::new(v.clone())))
}

fn eval_chain(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    chain: &Arg,
    call: Option<&[Value]>,
) -> R<Ev> {
    let Arg::Chain { pos, node, fields } = chain else {
        return Ok(None);
    };
    if let Arg::Nil { .. } = node.as_ref() {
        let msg = format!("indirection through explicit nil in {chain}");
        return Err(fr.error(ctx, *pos, &chain.to_string(), &msg).into());
    }
    let base = eval_arg(ctx, fr, dot, node)?;
    // Go's executor is left positioned at a function it called for the chain's base, so errors
    // in the fields name the function (`at <inputs>`), not the chain.
    let (pos, context) = match node.as_ref() {
        Arg::Identifier { pos, name } => (*pos, name.clone()),
        _ => (*pos, chain.to_string()),
    };
    eval_field_chain(ctx, fr, base.as_deref(), pos, &context, fields, call)
}

/// Evaluates an argument node to a value (Go's evalArg with an empty-interface or reflect.Value type).
fn eval_arg(ctx: &mut Ctx<'_>, fr: &mut Frame<'_>, dot: &mut Ev, arg: &Arg) -> R<Ev> {
    match arg {
        Arg::Dot { .. } => Ok(dot.clone()),
        Arg::Nil { .. } => Ok(ev(Value::Nil)),
        Arg::Field { pos, idents } => eval_field_chain(
            ctx,
            fr,
            dot.as_deref(),
            *pos,
            &arg.to_string(),
            idents,
            None,
        ),
        Arg::Variable { pos, idents } => {
            let v = var_value(ctx, fr, *pos, idents)?;
            if idents.len() == 1 {
                return Ok(v);
            }
            eval_field_chain(
                ctx,
                fr,
                v.as_deref(),
                *pos,
                &arg.to_string(),
                &idents[1..],
                None,
            )
        }
        Arg::Pipe { pipe, .. } => eval_pipeline(ctx, fr, dot, pipe),
        Arg::Identifier { pos, name } => {
            let cmd = Command {
                pos: *pos,
                args: vec![Arg::Identifier {
                    pos: *pos,
                    name: name.clone(),
                }],
            };
            eval_function(ctx, fr, dot, *pos, name, &cmd, None)
        }
        Arg::Chain { .. } => eval_chain(ctx, fr, dot, arg, None),
        Arg::Bool { value, .. } => Ok(ev(Value::Bool(*value))),
        Arg::Number { pos, num } => ideal_constant(ctx, fr, *pos, num).map(ev),
        Arg::String { text, .. } => Ok(ev(Value::String(text.clone()))),
    }
}

/// Arguments for a builtin taking `reflect.Value`s: an explicit `nil` is the invalid value.
fn eval_reflect_args(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    cmd: &Command,
    final_: Option<Ev>,
) -> R<Vec<Ev>> {
    let mut out = Vec::new();
    for a in cmd.args.iter().skip(1) {
        // Go's canBeNil holds for reflect.Value: an explicit nil is the invalid value.
        if let Arg::Nil { .. } = a {
            out.push(None);
            continue;
        }
        out.push(eval_arg(ctx, fr, dot, a)?);
    }
    if let Some(f) = final_ {
        out.push(f);
    }
    Ok(out)
}

/// Arguments for an executor function, shared rather than copied.
fn eval_ev_args(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    cmd: &Command,
    final_: Option<Ev>,
) -> R<Vec<Ev>> {
    let mut out = Vec::new();
    for a in cmd.args.iter().skip(1) {
        out.push(eval_arg(ctx, fr, dot, a)?);
    }
    out.extend(final_);
    Ok(out)
}

/// Arguments for a function taking `interface{}`s: missing values become nil.
fn eval_value_args(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    cmd: &Command,
    final_: Option<Ev>,
) -> R<Vec<Value>> {
    let mut out = Vec::new();
    for a in cmd.args.iter().skip(1) {
        out.push(to_value(eval_arg(ctx, fr, dot, a)?));
    }
    if let Some(f) = final_ {
        out.push(to_value(f));
    }
    Ok(out)
}

/// A function call, whose result is held to the value caps: values only grow through calls.
fn eval_function(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    pos: usize,
    name: &str,
    cmd: &Command,
    final_: Option<Ev>,
) -> R<Ev> {
    step(ctx, fr, 1, cmd.pos, &|| cmd.to_string())?;
    let result = eval_function_uncapped(ctx, fr, dot, pos, name, cmd, final_)?;
    if let Some(value) = result.as_deref() {
        if let Err(msg) = within_caps(value, ctx.opts) {
            let msg = format!("error calling {name}: {msg}");
            return Err(fr.error(ctx, cmd.pos, &cmd.to_string(), &msg).into());
        }
    }
    Ok(result)
}

/// Whether `value` is within `max_value` bytes and `max_value_depth` levels. The walk stops as
/// soon as either is passed, so its cost is bounded by the caps, and it is no more than the cost
/// of building the value.
///
/// Sizes are what the value takes in memory, not its text: a template that doubles a map
/// (`dict "a" $d "b" $d`) grows by allocations of a whole map node per level, so counting only
/// keys let it reach gigabytes while its "size" stayed under the cap.
fn within_caps(value: &Value, opts: &super::ExecOptions) -> Result<(), String> {
    /// What a string, list item or map entry holds besides its bytes.
    const SLOT: usize = std::mem::size_of::<Value>();
    /// A map's storage: B-tree nodes of up to eleven entries, each allocated whole.
    const MAP_NODE: usize = 11 * (std::mem::size_of::<String>() + SLOT) + 16;
    let mut budget = opts.max_value;
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((value, depth)) = stack.pop() {
        if depth > opts.max_value_depth {
            return Err(format!(
                "value nests deeper than the limit of {} levels",
                opts.max_value_depth
            ));
        }
        let cost = match value {
            Value::String(s) => s.len(),
            Value::List(items) => {
                stack.extend(items.iter().map(|v| (v, depth + 1)));
                items.len().saturating_add(1).saturating_mul(SLOT)
            }
            Value::Map(entries) => {
                stack.extend(entries.values().map(|v| (v, depth + 1)));
                let keys = entries
                    .keys()
                    .map(|k| k.len().saturating_add(SLOT))
                    .fold(0usize, usize::saturating_add);
                entries
                    .len()
                    .div_ceil(11)
                    .max(1)
                    .saturating_mul(MAP_NODE)
                    .saturating_add(keys)
            }
            _ => 0,
        };
        budget = match budget.checked_sub(cost) {
            Some(left) => left,
            None => {
                return Err(format!(
                    "value exceeds the limit of {} bytes",
                    opts.max_value
                ))
            }
        };
        if stack.len() > opts.max_value / SLOT {
            return Err(format!(
                "value exceeds the limit of {} bytes",
                opts.max_value
            ));
        }
    }
    Ok(())
}

fn eval_function_uncapped(
    ctx: &mut Ctx<'_>,
    fr: &mut Frame<'_>,
    dot: &mut Ev,
    pos: usize,
    name: &str,
    cmd: &Command,
    final_: Option<Ev>,
) -> R<Ev> {
    let helm = fr.set.helm_builtins;
    let is_executor_func = helm && (name == "include" || name == "tpl");
    let user = if is_executor_func {
        None
    } else {
        fr.set.funcs.get(name).copied()
    };
    let cmd_pos = cmd.pos;
    // The command as written, for errors only: formatting it on every call cost more than
    // some functions do.
    let ctx_str = || cmd.to_string();
    let fail = |ctx: &Ctx<'_>, fr: &Frame<'_>, msg: String| -> Flow {
        fr.error(
            ctx,
            cmd_pos,
            &ctx_str(),
            &format!("error calling {name}: {msg}"),
        )
        .into()
    };
    if let Some(value) = fr.set.bound.get(name) {
        let n_args = cmd.args.len() - 1 + usize::from(final_.is_some());
        if n_args != 0 {
            let msg = format!("wrong number of args for {name}: want 0 got {n_args}");
            return Err(fr.error(ctx, cmd_pos, &ctx_str(), &msg).into());
        }
        return Ok(ev(value.clone()));
    }
    if let Some(f) = user {
        let args = eval_value_args(ctx, fr, dot, cmd, final_)?;
        let extra = extra_cost(name, &args);
        if extra > 0 {
            step(ctx, fr, extra, cmd_pos, &ctx_str)?;
        }
        return match f(ctx.env, &args) {
            Ok(v) => {
                if super::funcs::mutates_first_arg(name) {
                    if let (Some(target), Some(Value::Map(_)), Value::Map(_)) =
                        (cmd.args.get(1), args.first(), &v)
                    {
                        write_back(fr, dot, target, &v);
                    }
                }
                Ok(ev(v))
            }
            Err(e) => Err(fail(ctx, fr, e.0)),
        };
    }
    if !is_builtin(name, helm) {
        let msg = format!("{} is not a defined function", quote(name));
        return Err(fr.error(ctx, pos, name, &msg).into());
    }
    let n_args = cmd.args.len() - 1 + usize::from(final_.is_some());
    let want = |ctx: &Ctx<'_>, fr: &Frame<'_>, exact: Option<usize>, at_least: usize| -> R<()> {
        let bad = match exact {
            Some(n) => (n_args != n)
                .then(|| format!("wrong number of args for {name}: want {n} got {n_args}")),
            None => (n_args < at_least).then(|| {
                format!("wrong number of args for {name}: want at least {at_least} got {n_args}")
            }),
        };
        match bad {
            Some(msg) => Err(fr.error(ctx, cmd_pos, &ctx_str(), &msg).into()),
            None => Ok(()),
        }
    };
    match name {
        "and" | "or" => {
            want(ctx, fr, None, 1)?;
            let is_or = name == "or";
            let mut v: Ev = None;
            for a in cmd.args.iter().skip(1) {
                v = match a {
                    Arg::Nil { .. } => None,
                    _ => eval_arg(ctx, fr, dot, a)?,
                };
                if truth(&v) == is_or {
                    return Ok(v);
                }
            }
            if let Some(f) = final_ {
                v = f;
            }
            Ok(v)
        }
        "not" => {
            want(ctx, fr, Some(1), 0)?;
            let a = eval_reflect_args(ctx, fr, dot, cmd, final_)?;
            Ok(ev(Value::Bool(!a.first().is_some_and(truth))))
        }
        "len" => {
            want(ctx, fr, Some(1), 0)?;
            let a = eval_reflect_args(ctx, fr, dot, cmd, final_)?;
            let a = borrowed(&a);
            let n = match a.first() {
                Some(Some(Value::String(s))) => s.len(),
                Some(Some(Value::List(l))) => l.len(),
                Some(Some(Value::Map(m))) => m.len(),
                Some(Some(Value::Nil)) => return Err(fail(ctx, fr, "len of nil pointer".into())),
                Some(Some(v)) => {
                    return Err(fail(ctx, fr, format!("len of type {}", v.go_type_name())))
                }
                _ => return Err(fail(ctx, fr, "len of untyped nil".into())),
            };
            Ok(ev(Value::Int(n as i64)))
        }
        "index" => {
            want(ctx, fr, None, 1)?;
            let a = eval_reflect_args(ctx, fr, dot, cmd, final_)?;
            let a = borrowed(&a);
            index(&a).map(ev).map_err(|m| fail(ctx, fr, m))
        }
        "slice" => {
            want(ctx, fr, None, 1)?;
            let a = eval_reflect_args(ctx, fr, dot, cmd, final_)?;
            let a = borrowed(&a);
            slice(&a).map(ev).map_err(|m| fail(ctx, fr, m))
        }
        "call" => {
            want(ctx, fr, None, 1)?;
            let callee = cmd.args.get(1).map(|a| a.to_string()).unwrap_or_default();
            let a = eval_reflect_args(ctx, fr, dot, cmd, final_)?;
            let a = borrowed(&a);
            let msg = match a.first() {
                Some(Some(Value::Nil)) | Some(None) | None => "call of nil".to_string(),
                Some(Some(v)) => format!("non-function {callee} of type {}", v.go_type_name()),
            };
            Err(fail(ctx, fr, msg))
        }
        "eq" | "ne" | "lt" | "le" | "gt" | "ge" => {
            if name == "eq" {
                want(ctx, fr, None, 1)?;
            } else {
                want(ctx, fr, Some(2), 0)?;
            }
            let a = eval_reflect_args(ctx, fr, dot, cmd, final_)?;
            compare(name, &borrowed(&a))
                .map(|b| ev(Value::Bool(b)))
                .map_err(|m| fail(ctx, fr, m))
        }
        "print" | "println" | "printf" => {
            if name == "printf" {
                want(ctx, fr, None, 1)?;
            }
            let a = eval_value_args(ctx, fr, dot, cmd, final_)?;
            let s = match name {
                "print" => gofmt::sprint(&a),
                "println" => gofmt::sprintln(&a),
                _ => match a.split_first() {
                    Some((Value::String(f), rest)) => gofmt::sprintf(f, rest),
                    Some((other, _)) => {
                        let msg = format!(
                            "wrong type for value; expected string; got {}",
                            other.go_type_name()
                        );
                        return Err(fr.error(ctx, cmd_pos, &ctx_str(), &msg).into());
                    }
                    None => String::new(),
                },
            };
            Ok(ev(Value::String(s)))
        }
        "html" | "js" | "urlquery" => {
            let a = eval_value_args(ctx, fr, dot, cmd, final_)?;
            let s = match a.as_slice() {
                [Value::String(s)] => s.clone(),
                // Go's `evalArgs` prints a missing value as `printableValue` does: `<no value>`,
                // a string to `fmt.Sprint` (no space beside it).
                _ => {
                    let printable: Vec<Value> = a
                        .into_iter()
                        .map(|v| match v {
                            Value::Nil => Value::String("<no value>".into()),
                            v => v,
                        })
                        .collect();
                    gofmt::sprint(&printable)
                }
            };
            let r = match name {
                "html" => html_escape(&s),
                "js" => js_escape(&s),
                _ => query_escape(&s),
            };
            Ok(ev(Value::String(r)))
        }
        "required" => {
            want(ctx, fr, Some(2), 0)?;
            let a = eval_value_args(ctx, fr, dot, cmd, final_)?;
            let (msg, val) = (
                a.first().cloned().unwrap_or_default(),
                a.get(1).cloned().unwrap_or_default(),
            );
            match &val {
                Value::Nil => Err(fail(ctx, fr, go_string(&msg))),
                Value::String(s) if s.is_empty() => Err(fail(ctx, fr, go_string(&msg))),
                _ => Ok(ev(val)),
            }
        }
        "include" => {
            want(ctx, fr, Some(2), 0)?;
            let a = eval_ev_args(ctx, fr, dot, cmd, final_)?;
            let tname = go_string(a.first().and_then(|v| v.as_deref()).unwrap_or(&NIL));
            let data = match a.get(1) {
                Some(Some(v)) if **v != Value::Nil => Some(v.clone()),
                _ => None,
            };
            let r = include(ctx, fr.set, &tname, data.clone());
            let (s, root) = r.map_err(|(m, inner)| with_chain(fail(ctx, fr, m), inner))?;
            if let (Some(changed), Some(target)) = (changed_root(&data, &root), cmd.args.get(2)) {
                write_back(fr, dot, target, &changed);
            }
            Ok(ev(Value::String(s)))
        }
        "tpl" => {
            want(ctx, fr, Some(2), 0)?;
            let a = eval_ev_args(ctx, fr, dot, cmd, final_)?;
            // Helm's `tpl` takes a Go string: anything else, a missing value included, is refused
            // before the call
            let text = match a.first().and_then(|v| v.as_deref()) {
                Some(Value::String(s)) => s.clone(),
                other => {
                    let got = match other {
                        Some(Value::Nil) | None => "interface {}".to_string(),
                        Some(v) => v.go_type_name().to_string(),
                    };
                    let msg = format!("wrong type for value; expected string; got {got}");
                    return Err(fr.error(ctx, cmd_pos, &ctx_str(), &msg).into());
                }
            };
            let data = match a.get(1) {
                Some(Some(v)) if **v != Value::Nil => Some(v.clone()),
                _ => None,
            };
            let r = tpl(ctx, fr.set, &text, data);
            r.map(|s| ev(Value::String(s)))
                .map_err(|(m, chain)| with_chain(fail(ctx, fr, m), chain))
        }
        _ => Err(fr
            .error(
                ctx,
                pos,
                name,
                &format!("{} is not a defined function", quote(name)),
            )
            .into()),
    }
}

/// Sprig functions like `set` modify the map given as their first argument. Go maps are
/// references, so the caller's map changes; values here are copies, so the result is stored back
/// where the first argument came from (a variable, dot, or a field path below either). Aliases of
/// that map made earlier (another variable holding it) do not see the change.
fn write_back(fr: &mut Frame<'_>, dot: &mut Ev, target: &Arg, new: &Value) {
    match target {
        Arg::Dot { .. } => {
            *dot = ev(new.clone());
            if fr.dot_is_root {
                fr.set_var("$", ev(new.clone()));
            } else if let Some((var, path)) = fr.dot_alias.clone() {
                write_back_index(fr, dot, var, path, new);
            }
        }
        Arg::Field { idents, .. } => {
            if let Some(d) = dot {
                set_path(Rc::make_mut(d), idents, new);
            }
            if fr.dot_is_root {
                if let Some(Var {
                    value: Some(root), ..
                }) = fr.vars.first_mut()
                {
                    set_path(Rc::make_mut(root), idents, new);
                }
            } else if let Some((var, path)) = fr.dot_alias.clone() {
                let path = path.into_iter().chain(idents.iter().cloned()).collect();
                write_back_index(fr, &mut None, var, path, new);
            }
        }
        Arg::Variable { idents, .. } => {
            let Some((name, path)) = idents.split_first() else {
                return;
            };
            write_back_var(fr, dot, name, path.to_vec(), new);
        }
        // `set (index $m "k") ...`: the map inside `$m`.
        Arg::Pipe { pipe, .. } if pipe.decl.is_empty() => {
            if let Some((var, path)) = alias_of(fr, pipe) {
                write_back_index(fr, dot, var, path, new);
            }
        }
        _ => {}
    }
}

/// Stores `new` at `path` inside variable `name`, following the variable's alias chain (each
/// alias points to an earlier variable, so the walk ends).
fn write_back_var(fr: &mut Frame<'_>, dot: &mut Ev, name: &str, path: Vec<String>, new: &Value) {
    if let Some(idx) = fr.var_index(name) {
        write_back_index(fr, dot, idx, path, new);
    }
}

/// Stores `new` at `path` inside the variable at `idx`, and along its alias chain.
fn write_back_index(fr: &mut Frame<'_>, dot: &mut Ev, idx: usize, path: Vec<String>, new: &Value) {
    let mut idx = idx;
    let mut path = path;
    loop {
        let Some(var) = fr.vars.get_mut(idx) else {
            return;
        };
        if let Some(v) = &mut var.value {
            set_path(Rc::make_mut(v), &path, new);
        }
        if idx == 0 {
            if fr.dot_is_root {
                if let Some(d) = dot {
                    set_path(Rc::make_mut(d), &path, new);
                }
            }
            return;
        }
        match var.alias.clone() {
            Some((next, prefix)) if next < idx => {
                idx = next;
                path = prefix.into_iter().chain(path).collect();
            }
            _ => return,
        }
    }
}

/// Replaces the value at `path` (map keys, list indexes) inside `v`, when every step exists.
fn set_path(v: &mut Value, path: &[String], new: &Value) {
    let mut cur = v;
    for k in path {
        let next = match cur {
            Value::Map(m) => std::sync::Arc::make_mut(m).get_mut(k),
            Value::List(l) => k.parse::<usize>().ok().and_then(|i| l.get_mut(i)),
            _ => None,
        };
        match next {
            Some(next) => cur = next,
            None => return,
        }
    }
    *cur = new.clone();
}

fn go_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => format_v(other),
    }
}

/// Keeps the template chain and location of a nested execution's error on the error wrapping it.
fn with_chain(f: Flow, inner: Option<Box<Error>>) -> Flow {
    match (f, inner) {
        (Flow::Err(mut e), Some(inner)) => {
            e.take_position_of(*inner);
            Flow::Err(e)
        }
        (f, _) => f,
    }
}

/// An error message for a function call, with the error of a nested execution if any.
type NestedError = (String, Option<Box<Error>>);

fn depth_error(ctx: &Ctx<'_>) -> Option<NestedError> {
    (ctx.depth >= ctx.opts.max_depth).then(|| {
        (
            format!("exceeded maximum template depth ({})", ctx.opts.max_depth),
            None,
        )
    })
}

/// Helm's `include`: renders a named template to a string, refusing runaway recursion per name.
fn include(
    ctx: &mut Ctx<'_>,
    set: &Set,
    name: &str,
    data: Ev,
) -> Result<(String, Ev), NestedError> {
    if ctx.include_counts.get(name).copied().unwrap_or(0) > ctx.opts.max_include_depth {
        let msg = format!(
            "rendering template has a nested reference name: {name}: unable to execute template"
        );
        return Err((msg, None));
    }
    if let Some(e) = depth_error(ctx) {
        return Err(e);
    }
    *ctx.include_counts.entry(name.to_string()).or_insert(0) += 1;
    ctx.depth += 1;
    let mut out = String::new();
    let r = execute(ctx, set, name, data, &mut out);
    ctx.depth -= 1;
    if let Some(c) = ctx.include_counts.get_mut(name) {
        *c = c.saturating_sub(1);
    }
    r.map(|root| (out, root))
        .map_err(|e| (e.to_string(), Some(Box::new(e))))
}

/// Whether a called template changed the map it was given (Go would have changed the caller's).
fn changed_root(passed: &Ev, root: &Ev) -> Option<Rc<Value>> {
    match (passed, root) {
        (Some(p), Some(r)) if !Rc::ptr_eq(p, r) && matches!(**r, Value::Map(_)) => Some(r.clone()),
        _ => None,
    }
}

/// Helm's `tpl`: parses `text` into a copy of the current set and renders it with `data`.
fn tpl(ctx: &mut Ctx<'_>, set: &Set, text: &str, data: Ev) -> Result<String, NestedError> {
    let name = set.name.clone();
    let trees = set
        .parse(&name, text)
        .map_err(|e| (format!("cannot parse template {}: {e}", quote(text)), None))?;
    if let Some(e) = depth_error(ctx) {
        return Err(e);
    }
    ctx.depth += 1;
    let mut out = String::new();
    // Helm runs the text in a copy of the set that holds it (and whatever it defines). Text that
    // defines nothing and replaces nothing runs against the set itself: copying a library
    // chart's hundreds of templates for every `tpl` call was a large part of a render.
    let r = match trees.as_slice() {
        [tree]
            if tree.name == name
                && !(super::parse::is_empty_tree(&tree.root) && set.contains(&name)) =>
        {
            execute_tree(ctx, set, &name, tree, data, &mut out)
        }
        _ => {
            let mut copy = set.clone();
            copy.insert(trees);
            execute(ctx, &copy, &name, data, &mut out)
        }
    };
    ctx.depth -= 1;
    r.map(|_| ()).map_err(|e| {
        let msg = format!(
            "error during tpl function execution for {}: {e}",
            quote(text)
        );
        (msg, Some(Box::new(e)))
    })?;
    Ok(out.replace("<no value>", ""))
}

fn index(args: &[Option<&Value>]) -> Result<Value, String> {
    let Some((item, indexes)) = args.split_first() else {
        return Err("missing item".into());
    };
    let mut item: Value = match item {
        None | Some(Value::Nil) => return Err("index of untyped nil".into()),
        Some(v) => (*v).clone(),
    };
    for idx in indexes {
        item = match item {
            Value::Nil => return Err("index of nil pointer".into()),
            Value::List(l) => {
                let x = index_arg(idx, l.len())?;
                match l.into_iter().nth(x) {
                    Some(v) => v,
                    None => return Err(format!("index out of range: {x}")),
                }
            }
            Value::String(s) => {
                let x = index_arg(idx, s.len())?;
                match s.as_bytes().get(x) {
                    Some(b) => Value::Int(i64::from(*b)),
                    None => return Err(format!("index out of range: {x}")),
                }
            }
            Value::Map(m) => match idx {
                Some(Value::String(k)) => m.get(k).cloned().unwrap_or(Value::Nil),
                None | Some(Value::Nil) => {
                    return Err("value is nil; should be of type string".into())
                }
                Some(v) => {
                    return Err(format!(
                        "value has type {}; should be string",
                        v.go_type_name()
                    ))
                }
            },
            other => return Err(format!("can't index item of type {}", other.go_type_name())),
        };
    }
    Ok(item)
}

fn index_arg(idx: &Option<&Value>, len: usize) -> Result<usize, String> {
    let x = match idx {
        Some(Value::Int(i)) => *i,
        None | Some(Value::Nil) => return Err("cannot index slice/array with nil".into()),
        Some(v) => {
            return Err(format!(
                "cannot index slice/array with type {}",
                v.go_type_name()
            ))
        }
    };
    if x < 0 || x as u64 >= len as u64 {
        return Err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

fn slice_arg(idx: &Option<&Value>, cap: usize) -> Result<usize, String> {
    let x = match idx {
        Some(Value::Int(i)) => *i,
        None | Some(Value::Nil) => return Err("cannot index slice/array with nil".into()),
        Some(v) => {
            return Err(format!(
                "cannot index slice/array with type {}",
                v.go_type_name()
            ))
        }
    };
    if x < 0 || x as u64 > cap as u64 {
        return Err(format!("index out of range: {x}"));
    }
    Ok(x as usize)
}

fn slice(args: &[Option<&Value>]) -> Result<Value, String> {
    let Some((item, indexes)) = args.split_first() else {
        return Err("missing item".into());
    };
    let item = match item {
        None | Some(Value::Nil) => return Err("slice of untyped nil".into()),
        Some(v) => v,
    };
    if indexes.len() > 3 {
        return Err(format!("too many slice indexes: {}", indexes.len()));
    }
    let len = match item {
        Value::String(s) => {
            if indexes.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            s.len()
        }
        Value::List(l) => l.len(),
        other => return Err(format!("can't slice item of type {}", other.go_type_name())),
    };
    let mut idx = [0, len, len];
    for (i, x) in indexes.iter().enumerate() {
        idx[i] = slice_arg(x, len)?;
    }
    if idx[0] > idx[1] {
        return Err(format!("invalid slice index: {} > {}", idx[0], idx[1]));
    }
    if indexes.len() == 3 && idx[1] > idx[2] {
        return Err(format!("invalid slice index: {} > {}", idx[1], idx[2]));
    }
    Ok(match item {
        Value::String(s) => {
            Value::String(String::from_utf8_lossy(&s.as_bytes()[idx[0]..idx[1]]).into_owned())
        }
        Value::List(l) => Value::List(l[idx[0]..idx[1]].to_vec()),
        _ => Value::Nil,
    })
}

#[derive(PartialEq, Clone, Copy)]
enum BasicKind {
    Invalid,
    Bool,
    Complex,
    Int,
    Float,
    String,
    Other,
}

fn basic_kind(v: &Option<&Value>) -> BasicKind {
    match v {
        None | Some(Value::Nil) => BasicKind::Invalid,
        Some(Value::Bool(_)) => BasicKind::Bool,
        Some(Value::Complex(..)) => BasicKind::Complex,
        Some(Value::Int(_)) => BasicKind::Int,
        Some(Value::Float(_)) => BasicKind::Float,
        Some(Value::String(_)) => BasicKind::String,
        Some(_) => BasicKind::Other,
    }
}

const BAD_COMPARISON: &str = "incompatible types for comparison";
const BAD_COMPARISON_TYPE: &str = "invalid type for comparison";

fn eq_pair(a: &Option<&Value>, b: &Option<&Value>) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a), basic_kind(b));
    if k1 != k2 {
        if k1 != BasicKind::Invalid && k2 != BasicKind::Invalid {
            return Err(BAD_COMPARISON.into());
        }
        return Ok(false);
    }
    Ok(match (a, b) {
        (Some(Value::Bool(x)), Some(Value::Bool(y))) => x == y,
        (Some(Value::Int(x)), Some(Value::Int(y))) => x == y,
        (Some(Value::Float(x)), Some(Value::Float(y))) => x == y,
        (Some(Value::String(x)), Some(Value::String(y))) => x == y,
        (Some(Value::Complex(a1, b1)), Some(Value::Complex(a2, b2))) => a1 == a2 && b1 == b2,
        (Some(x), Some(y)) if k1 == BasicKind::Other => {
            return Err(format!(
                "non-comparable types {}: {}, {}: {}",
                format_v(x),
                x.go_type_name(),
                y.go_type_name(),
                format_v(y)
            ));
        }
        _ => true,
    })
}

fn less(a: &Option<&Value>, b: &Option<&Value>) -> Result<bool, String> {
    let (k1, k2) = (basic_kind(a), basic_kind(b));
    if matches!(k1, BasicKind::Invalid | BasicKind::Other)
        || matches!(k2, BasicKind::Invalid | BasicKind::Other)
    {
        return Err(BAD_COMPARISON_TYPE.into());
    }
    if k1 != k2 {
        return Err(BAD_COMPARISON.into());
    }
    match (a, b) {
        (Some(Value::Int(x)), Some(Value::Int(y))) => Ok(x < y),
        (Some(Value::Float(x)), Some(Value::Float(y))) => Ok(x < y),
        (Some(Value::String(x)), Some(Value::String(y))) => Ok(x < y),
        _ => Err(BAD_COMPARISON_TYPE.into()),
    }
}

fn compare(name: &str, args: &[Option<&Value>]) -> Result<bool, String> {
    let Some((first, rest)) = args.split_first() else {
        return Err("missing argument for comparison".into());
    };
    match name {
        "eq" => {
            if rest.is_empty() {
                return Err("missing argument for comparison".into());
            }
            for r in rest {
                if eq_pair(first, r)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        _ => {
            let second = rest.first().cloned().unwrap_or(None);
            match name {
                "ne" => eq_pair(first, &second).map(|b| !b),
                "lt" => less(first, &second),
                "le" => Ok(less(first, &second)? || eq_pair(first, &second)?),
                "gt" => Ok(!(less(first, &second)? || eq_pair(first, &second)?)),
                _ => less(first, &second).map(|b| !b),
            }
        }
    }
}

/// Go's `template.HTMLEscapeString`.
fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\0' => out.push('\u{FFFD}'),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            c => out.push(c),
        }
    }
    out
}

/// Go's `template.JSEscapeString`.
fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

/// Go's `url.QueryEscape`.
fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
