//! Go text/template with Sprig and Helm functions. Knows nothing of Helm charts or Kubernetes.
//!
//! A [`Set`] holds associated templates (Go's `*template.Template` with its namespace): text is parsed
//! into it with [`Set::add`] and any template is run with [`Set::execute`]. Function libraries are
//! supplied by the caller as a map (see [`funcs`]); the executor provides Go's builtins and, when
//! enabled with [`Set::with_helm_builtins`], Helm's `include`, `tpl` and `required`.
//!
//! Supported: the whole template language of Go 1.23 (actions, pipelines, variables, if/with/range
//! with `else if`/`else with`, range over ints, break/continue, define/template/block, trim markers,
//! comments, custom delimiters), Go's builtins and `fmt` verbs, `missingkey` options, and Go's error
//! texts with positions. Not supported: methods and function values in data (there are none in
//! [`Value`]), `call` of anything (always an error, as with JSON-like data in Go), iterators.
//!
//! Values are copies, not Go's shared maps. To keep Go's results, Sprig's map-mutating functions
//! (`set`, `unset`, `merge`...) store their result back where their first argument came from (a
//! variable, dot or a field path); a variable declared from a path (`$r := $`, `$v := .Values.x`,
//! the value of a `range` over a map) writes through to that path; and a map an `include`d or
//! `template`-called template changed through its dot or `$` is stored back into the caller's
//! argument. This covers `$_ := set $d "k" v`, Helm libraries that rewrite `.Values`, and results
//! returned through a dict. Not covered: maps shared by being stored inside other values (`dict
//! "m" $m` or `merge` keep copies), so Sprig's issue-188 behaviour differs.
//! Dot and variables are shared between template calls without copying; arguments to library
//! functions are copied.

#![deny(unreachable_pub)]

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeExample;

mod exec;
pub mod funcs;
mod gofmt;
mod lex;
mod parse;
mod value;

use std::collections::HashMap;
use std::sync::Arc;

pub use gofmt::{from_serde, json_kind};
pub use gofmt::{sprint, sprintf};
pub use value::{Map, Value};

use funcs::{FuncEnv, Function};
use offlux_sync::MutexExt as _;

/// Go's `missingkey` option: what a missing map key evaluates to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MissingKey {
    /// Go's default: the invalid value, printed as `<no value>`.
    #[default]
    Default,
    /// The zero value of the map's element type (nil for `map[string]interface{}`), as Helm uses.
    Zero,
    /// Stop with an error.
    Error,
}

/// Options of one execution.
#[derive(Clone, Debug)]
pub struct ExecOptions {
    pub missing_key: MissingKey,
    /// Nesting limit for `template`, `include` and `tpl` calls. Go allows 100000; the default here is
    /// lower so that runaway recursion ends with an error well before the stack does.
    pub max_depth: usize,
    /// Helm's per-name limit on nested `include`s.
    pub max_include_depth: usize,
    /// Output size cap in bytes (counting the output of nested `include`s).
    pub max_output: usize,
    /// Cap on the size of one value a function returns (string bytes, plus a few bytes per list
    /// item and map entry), so that a template doubling a value in a loop ends with an error.
    pub max_value: usize,
    /// Cap on how deeply the lists and maps of one value a function returns nest.
    pub max_value_depth: usize,
    /// Cap on the steps of one execution, nested templates, `include`s and `tpl`s counted in:
    /// each action, branch, range iteration and function call is a step, and the functions
    /// that cost milliseconds (key and certificate generation, password hashing) count as many
    /// steps as that time would take (see `exec::cost`). Go has no such cap; a loop of a few
    /// lines can otherwise run for hours.
    pub max_steps: u64,
    /// The run this execution belongs to: its cancellation flag is checked as the steps are
    /// counted, so Ctrl-C stops a long execution.
    pub run: Option<Arc<offlux_budget::RunBudget>>,
}

impl Default for ExecOptions {
    fn default() -> Self {
        ExecOptions {
            missing_key: MissingKey::Default,
            max_depth: 3000,
            max_include_depth: 1000,
            max_output: 64 << 20,
            max_value: 64 << 20,
            max_value_depth: 1000,
            max_steps: offlux_budget::Limits::default().template_steps,
            run: None,
        }
    }
}

/// Where an error happened: the template text (Go's ParseName, e.g. the file) and position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    pub template: String,
    pub line: usize,
    /// Byte offset in the line, counted from 0 as Go does; parse errors have none.
    pub column: Option<usize>,
}

/// A parse or execution error: Go's message text (what `Display` prints, unchanged from Go's)
/// and where it happened.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Error {
    /// The text is not a valid template.
    #[error("{message}")]
    Parse { message: String, location: Location },
    /// Executing a template failed.
    #[error("{message}")]
    Exec {
        kind: ExecErrorKind,
        message: String,
        /// Where, when known (for nested calls, the innermost position).
        location: Option<Location>,
        /// The templates (and includes) being executed, outermost first.
        template_chain: Vec<String>,
    },
}

/// What stopped an execution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecErrorKind {
    /// The template to run is not defined in the set, or is empty.
    UndefinedTemplate,
    /// An action failed (Go's `executing "NAME" at <...>`): a function's error (`fail` and
    /// `required` among them), a missing key under `missingkey=error`, a wrong argument, a
    /// nesting or value-size limit.
    Action,
    /// The output grew past `ExecOptions::max_output`.
    OutputLimit,
    /// The execution took more than `ExecOptions::max_steps` steps.
    StepLimit,
    /// The run was cancelled (Ctrl-C) while the template ran.
    Cancelled,
    /// The executor itself failed (its thread panicked, or no thread could run it).
    Internal,
}

impl Error {
    fn parse(message: String, location: Location) -> Self {
        Error::Parse { message, location }
    }

    fn exec(kind: ExecErrorKind, message: String, template_chain: Vec<String>) -> Self {
        Error::Exec {
            kind,
            message,
            location: None,
            template_chain,
        }
    }

    /// The same error, of another kind.
    pub(crate) fn with_kind(mut self, new: ExecErrorKind) -> Self {
        if let Error::Exec { kind, .. } = &mut self {
            *kind = new;
        }
        self
    }

    /// An action's failure at `location`.
    fn exec_at(message: String, template_chain: Vec<String>, location: Location) -> Self {
        Error::Exec {
            kind: ExecErrorKind::Action,
            message,
            location: Some(location),
            template_chain,
        }
    }

    /// Where the error happened, when known (for nested calls, the innermost position).
    pub fn location(&self) -> Option<&Location> {
        match self {
            Error::Parse { location, .. } => Some(location),
            Error::Exec { location, .. } => location.as_ref(),
        }
    }

    /// The templates (and includes) being executed when the error happened, outermost first.
    pub fn template_chain(&self) -> &[String] {
        match self {
            Error::Parse { .. } => &[],
            Error::Exec { template_chain, .. } => template_chain,
        }
    }

    /// Whether the error happened while executing (as opposed to parsing).
    pub fn is_exec(&self) -> bool {
        matches!(self, Error::Exec { .. })
    }

    /// What stopped the execution; `None` for a parse error.
    pub fn exec_kind(&self) -> Option<ExecErrorKind> {
        match self {
            Error::Parse { .. } => None,
            Error::Exec { kind, .. } => Some(*kind),
        }
    }

    /// Takes the position (template chain and location) of `inner`, the error of a nested
    /// execution that this one reports.
    pub(crate) fn take_position_of(&mut self, inner: Error) {
        if let (
            Error::Exec {
                kind,
                location,
                template_chain,
                ..
            },
            Error::Exec {
                kind: inner_kind,
                location: inner_location,
                template_chain: inner_chain,
                ..
            },
        ) = (self, inner)
        {
            *location = inner_location;
            *template_chain = inner_chain;
            // A limit or a cancellation stops the whole execution, whoever called it.
            if matches!(
                inner_kind,
                ExecErrorKind::StepLimit | ExecErrorKind::Cancelled
            ) {
                *kind = inner_kind;
            }
        }
    }
}

/// A set of associated templates sharing functions and delimiters.
#[derive(Clone)]
pub struct Set {
    name: String,
    trees: HashMap<String, Arc<parse::Tree>>,
    funcs: Arc<HashMap<String, Function>>,
    helm_builtins: bool,
    delims: (String, String),
    max_paren_depth: usize,
    methods: Option<MethodFn>,
    /// Zero-argument functions that return a fixed value (Go closures over data).
    bound: Arc<HashMap<String, Value>>,
}

/// Methods on data, Go's `.Receiver.Method args` (Helm's `.Files.Get`, `.Capabilities.APIVersions.Has`):
/// called with the receiver, the method name and the arguments where Go would find no field or map
/// key (and before a map key when arguments are given). `None` means "no such method".
pub(crate) type MethodFn =
    fn(&mut FuncEnv, &Value, &str, &[Value]) -> Option<Result<Value, funcs::FuncError>>;

impl Set {
    /// An empty set named `name` (the name Go's errors use for the set, and `tpl`'s template name).
    pub fn new(name: &str, funcs: HashMap<String, Function>) -> Set {
        Set {
            name: name.to_string(),
            trees: HashMap::new(),
            funcs: Arc::new(funcs),
            helm_builtins: false,
            delims: (String::new(), String::new()),
            max_paren_depth: 2000,
            methods: None,
            bound: Arc::new(HashMap::new()),
        }
    }

    /// Defines `name` as a function of no arguments returning `value`, as a Go caller does with a
    /// closure in its `FuncMap` (a template's own view of per-run data). Bind before parsing, so
    /// the parser knows the name; binding again later changes the value for later executions.
    pub fn bind(&mut self, name: &str, value: Value) {
        Arc::make_mut(&mut self.bound).insert(name.to_string(), value);
    }

    /// Enables Helm's executor-level functions `include`, `tpl` and `required`.
    pub fn with_helm_builtins(mut self) -> Set {
        self.helm_builtins = true;
        self
    }

    /// Resolves `.x.Name args` on data values that have no field `Name`.
    pub fn with_methods(mut self, methods: MethodFn) -> Set {
        self.methods = Some(methods);
        self
    }

    /// Sets the action delimiters for later [`Set::add`] calls (empty strings mean `{{` and `}}`).
    pub fn delims(&mut self, left: &str, right: &str) {
        self.delims = (left.to_string(), right.to_string());
    }

    /// Limits the nesting of parenthesized pipelines (default 2000; Go allows 10000).
    pub fn max_expression_depth(&mut self, depth: usize) {
        self.max_paren_depth = depth;
    }

    /// Parses `text` as template `name`, adding it and the templates it defines to the set. As in Go,
    /// a later definition replaces an earlier one, except that an empty body never replaces one.
    ///
    /// Parsing runs on a helper thread with a large stack, as execution does.
    pub fn add(&mut self, name: &str, text: &str) -> Result<(), Error> {
        let trees = on_big_stack(name, || self.parse(name, text))?;
        self.insert(trees);
        Ok(())
    }

    fn parse(&self, name: &str, text: &str) -> Result<Vec<parse::Tree>, Error> {
        let funcs = self.funcs.clone();
        let bound = self.bound.clone();
        let helm = self.helm_builtins;
        let is_func = move |n: &str| {
            funcs.contains_key(n) || bound.contains_key(n) || exec::is_builtin(n, helm)
        };
        let cfg = parse::ParseConfig {
            left: &self.delims.0,
            right: &self.delims.1,
            is_func: &is_func,
            max_paren_depth: self.max_paren_depth,
        };
        parse::parse(name, text, &cfg).map_err(|e| parse_error(name, e))
    }

    fn insert(&mut self, trees: Vec<parse::Tree>) {
        for tree in trees {
            let replace = match self.trees.get(&tree.name) {
                Some(_) => !parse::is_empty_tree(&tree.root),
                None => true,
            };
            if replace {
                self.trees.insert(tree.name.clone(), Arc::new(tree));
            }
        }
    }

    /// Whether a template of that name has been parsed into the set.
    pub fn contains(&self, name: &str) -> bool {
        self.trees.contains_key(name)
    }

    /// The names of the set's templates, sorted.
    pub fn names(&self) -> Vec<String> {
        let mut v: Vec<String> = self.trees.keys().cloned().collect();
        v.sort();
        v
    }

    /// Go's `Tree.Root.String()` of a template, text nodes quoted (for tests and debugging).
    #[doc(hidden)]
    pub fn tree_string(&self, name: &str) -> Option<String> {
        self.trees
            .get(name)
            .map(|t| parse::list_string(&t.root, true))
    }

    /// Runs template `name` with `data` as dot. Go's nil data (`Value::Nil`) is the invalid value.
    ///
    /// Execution runs on a helper thread with a large stack, so that deep but legal nesting of
    /// templates cannot overflow the caller's stack.
    pub fn execute(
        &self,
        name: &str,
        data: &Value,
        opts: &ExecOptions,
        env: &mut FuncEnv,
    ) -> Result<String, Error> {
        let data = match data {
            Value::Nil => None,
            v => Some(v.clone()),
        };
        on_big_stack(name, move || run(self, name, data, opts, env))
    }

    /// Like [`Set::execute`], taking `data` and handing it back unchanged, so that a caller that
    /// runs many templates over the same large data never copies it.
    pub fn execute_owned(
        &self,
        name: &str,
        data: Value,
        opts: &ExecOptions,
        env: &mut FuncEnv,
    ) -> (Result<String, Error>, Value) {
        let slot = std::sync::Mutex::new(None);
        let result = on_big_stack(name, || {
            let (result, data) = run_owned(self, name, data, opts, env);
            {
                let mut slot = slot.locked();
                *slot = Some(data);
            }
            result
        });
        let data = slot.into_inner().ok().flatten().unwrap_or_default();
        (result, data)
    }
}

fn run_owned(
    set: &Set,
    name: &str,
    data: Value,
    opts: &ExecOptions,
    env: &mut FuncEnv,
) -> (Result<String, Error>, Value) {
    let shared = std::rc::Rc::new(data);
    let result = run_shared(set, name, Some(shared.clone()), opts, env);
    // The run holds no reference any more; a template that changed `$` changed its own copy.
    (result, std::rc::Rc::unwrap_or_clone(shared))
}

fn run(
    set: &Set,
    name: &str,
    data: Option<Value>,
    opts: &ExecOptions,
    env: &mut FuncEnv,
) -> Result<String, Error> {
    run_shared(set, name, data.map(std::rc::Rc::new), opts, env)
}

fn run_shared(
    set: &Set,
    name: &str,
    data: Option<std::rc::Rc<Value>>,
    opts: &ExecOptions,
    env: &mut FuncEnv,
) -> Result<String, Error> {
    if env.run.is_none() {
        env.run = opts.run.clone();
    }
    let mut ctx = exec::Ctx {
        opts,
        env,
        steps: 0,
        depth: 0,
        include_counts: HashMap::new(),
        written: 0,
        chain: Vec::new(),
    };
    let mut out = String::new();
    exec::execute(&mut ctx, set, name, data, &mut out).map(|_| out)
}

/// The syntax trees of parsed templates, for analyses that read templates without running them
/// (which `.Values` paths a chart reads).
pub mod syntax {
    pub use super::parse::{Arg, Branch, Command, Node, Number, Pipe, Tree};
}

fn parse_error(name: &str, error: parse::ParseError) -> Error {
    let location = Location {
        template: name.to_string(),
        line: error.line,
        column: None,
    };
    Error::parse(error.message, location)
}

/// Parses `text` as template `name` with the default delimiters, every identifier taken for a
/// function, into its trees (the top-level one and one per `define`/`block`). For analyses only:
/// nothing is checked that execution would need.
pub fn parse_trees(name: &str, text: &str) -> Result<Vec<syntax::Tree>, Error> {
    on_big_stack(name, || {
        let cfg = parse::ParseConfig {
            left: "",
            right: "",
            is_func: &|_: &str| true,
            max_paren_depth: 2000,
        };
        parse::parse(name, text, &cfg).map_err(|e| parse_error(name, e))
    })
}

/// Runs `f` on a helper thread with a large stack, so that deep but legal nesting cannot overflow
/// the caller's stack; runs it on the caller's thread when no thread can be started, or when the
/// caller is already such a thread. A caller that executes many templates in a row (a chart's)
/// wraps them all in one call: a thread started per template, each touching fresh stack pages,
/// cost more than many of the templates themselves.
pub fn on_big_stack<T: Send>(
    name: &str,
    f: impl FnOnce() -> Result<T, Error> + Send,
) -> Result<T, Error> {
    if ON_BIG_STACK.get() {
        // A panic ends this call with an error, as on a thread of its own (the caller's state
        // is not touched by a template).
        return std::panic::catch_unwind(std::panic::AssertUnwindSafe(f))
            .unwrap_or_else(|_| Err(panicked(name)));
    }
    let slot = std::sync::Mutex::new(Some(f));
    let take = || slot.locked().take();
    let on_thread = std::thread::scope(|s| {
        let handle = std::thread::Builder::new()
            .stack_size(STACK_SIZE)
            .spawn_scoped(s, || {
                ON_BIG_STACK.set(true);
                take().map(|f| f())
            });
        match handle {
            Ok(h) => h.join().unwrap_or_else(|_| Some(Err(panicked(name)))),
            Err(_) => None,
        }
    });
    match on_thread {
        Some(r) => r,
        None => match take() {
            Some(f) => f(),
            None => Err(Error::exec(
                ExecErrorKind::Internal,
                format!("template: {name}: internal error"),
                Vec::new(),
            )),
        },
    }
}

/// The error a template's panic ends its run with.
fn panicked(name: &str) -> Error {
    let msg = format!("template: {name}: internal error (panic)");
    Error::exec(ExecErrorKind::Internal, msg, Vec::new())
}

thread_local! {
    /// Whether this thread has the big stack: one [`on_big_stack`] started, or one declared
    /// ([`declare_big_stack`]).
    static ON_BIG_STACK: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Stack for the executor thread: enough for `ExecOptions::max_depth` nested templates.
const STACK_SIZE: usize = 512 << 20;

/// The stack a thread needs for templates to run on it directly ([`on_big_stack`] then starts no
/// thread of its own). A caller that starts its own workers with this stack, and calls
/// [`declare_big_stack`] first thing on each, saves a thread start per chart: each one maps a
/// fresh stack and touches new pages, which cost more than many a chart's templates.
pub const BIG_STACK_SIZE: usize = STACK_SIZE;

/// Declares that the calling thread was started with at least [`BIG_STACK_SIZE`] of stack.
/// Declaring it on a smaller thread lets deep nesting overflow that thread's stack (a crash,
/// which is what the big stack is for).
pub fn declare_big_stack() {
    ON_BIG_STACK.set(true);
}

#[cfg(test)]
mod tests;
