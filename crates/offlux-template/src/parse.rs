//! The parser of Go's text/template: turns tokens into trees (one per `define`/`block` plus the
//! top-level one), with Go's checks and error messages (`template: NAME:LINE: MSG`). It knows the
//! names of callable functions only to reject undefined ones, as Go does.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::gofmt::quote;
use super::lex::{lex, Kind, Token};

/// A parsed template: its name, the name of the text it came from, and its nodes.
#[derive(Debug)]
pub struct Tree {
    pub name: String,
    pub parse_name: String,
    pub text: Arc<str>,
    pub root: Vec<Node>,
}

#[derive(Debug)]
pub enum Node {
    Text(String),
    Action(Pipe),
    If(Branch),
    Range(Branch),
    With(Branch),
    Template {
        pos: usize,
        name: String,
        pipe: Option<Pipe>,
    },
    Break,
    Continue,
}

#[derive(Debug)]
pub struct Branch {
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub else_list: Option<Vec<Node>>,
}

#[derive(Debug)]
pub struct Pipe {
    pub pos: usize,
    pub is_assign: bool,
    pub decl: Vec<String>,
    pub cmds: Vec<Command>,
}

#[derive(Debug)]
pub struct Command {
    pub pos: usize,
    pub args: Vec<Arg>,
}

#[derive(Debug)]
pub enum Arg {
    /// `.a.b`: the field names.
    Field {
        pos: usize,
        idents: Vec<String>,
    },
    /// `$x.a.b`: `$x` then the field names.
    Variable {
        pos: usize,
        idents: Vec<String>,
    },
    /// `(pipe).a.b` or `fn.a`.
    Chain {
        pos: usize,
        node: Box<Arg>,
        fields: Vec<String>,
    },
    Identifier {
        pos: usize,
        name: String,
    },
    Dot {
        pos: usize,
    },
    Nil {
        pos: usize,
    },
    Bool {
        pos: usize,
        value: bool,
    },
    Number {
        pos: usize,
        num: Number,
    },
    String {
        pos: usize,
        quoted: String,
        text: String,
    },
    Pipe {
        pos: usize,
        pipe: Pipe,
    },
}

impl Arg {
    pub(crate) fn pos(&self) -> usize {
        match self {
            Arg::Field { pos, .. }
            | Arg::Variable { pos, .. }
            | Arg::Chain { pos, .. }
            | Arg::Identifier { pos, .. }
            | Arg::Dot { pos }
            | Arg::Nil { pos }
            | Arg::Bool { pos, .. }
            | Arg::Number { pos, .. }
            | Arg::String { pos, .. }
            | Arg::Pipe { pos, .. } => *pos,
        }
    }
}

/// A numeric literal with every interpretation Go's parser derives from its text.
#[derive(Debug, Clone, Default)]
pub struct Number {
    pub text: String,
    pub is_int: bool,
    pub is_uint: bool,
    pub is_float: bool,
    pub is_complex: bool,
    pub int: i64,
    pub float: f64,
    pub complex: (f64, f64),
}

// ---------------------------------------------------------------------------------------------
// Printing, as Go's `Node.String()`. Text nodes are printed as-is or quoted (the parse tests' form).

pub(crate) fn list_string(nodes: &[Node], quote_text: bool) -> String {
    let mut s = String::new();
    for n in nodes {
        node_string(&mut s, n, quote_text);
    }
    s
}

fn node_string(s: &mut String, n: &Node, q: bool) {
    match n {
        Node::Text(t) => {
            if q {
                s.push_str(&quote(t));
            } else {
                s.push_str(t);
            }
        }
        Node::Action(p) => {
            s.push_str("{{");
            s.push_str(&p.to_string());
            s.push_str("}}");
        }
        Node::If(b) => branch_string(s, "if", b, q),
        Node::Range(b) => branch_string(s, "range", b, q),
        Node::With(b) => branch_string(s, "with", b, q),
        Node::Template { name, pipe, .. } => {
            s.push_str("{{template ");
            s.push_str(&quote(name));
            if let Some(p) = pipe {
                s.push(' ');
                s.push_str(&p.to_string());
            }
            s.push_str("}}");
        }
        Node::Break => s.push_str("{{break}}"),
        Node::Continue => s.push_str("{{continue}}"),
    }
}

fn branch_string(s: &mut String, kw: &str, b: &Branch, q: bool) {
    s.push_str(&format!("{{{{{kw} {}}}}}", b.pipe));
    s.push_str(&list_string(&b.list, q));
    if let Some(e) = &b.else_list {
        s.push_str("{{else}}");
        s.push_str(&list_string(e, q));
    }
    s.push_str("{{end}}");
}

impl fmt::Display for Pipe {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.decl.is_empty() {
            write!(
                f,
                "{} {} ",
                self.decl.join(", "),
                if self.is_assign { "=" } else { ":=" }
            )?;
        }
        for (i, c) in self.cmds.iter().enumerate() {
            if i > 0 {
                f.write_str(" | ")?;
            }
            write!(f, "{c}")?;
        }
        Ok(())
    }
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, a) in self.args.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if let Arg::Pipe { pipe, .. } = a {
                write!(f, "({pipe})")?;
            } else {
                write!(f, "{a}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for Arg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Arg::Field { idents, .. } => {
                for i in idents {
                    write!(f, ".{i}")?;
                }
                Ok(())
            }
            Arg::Variable { idents, .. } => f.write_str(&idents.join(".")),
            Arg::Chain { node, fields, .. } => {
                if let Arg::Pipe { pipe, .. } = node.as_ref() {
                    write!(f, "({pipe})")?;
                } else {
                    write!(f, "{node}")?;
                }
                for field in fields {
                    write!(f, ".{field}")?;
                }
                Ok(())
            }
            Arg::Identifier { name, .. } => f.write_str(name),
            Arg::Dot { .. } => f.write_str("."),
            Arg::Nil { .. } => f.write_str("nil"),
            Arg::Bool { value, .. } => write!(f, "{value}"),
            Arg::Number { num, .. } => f.write_str(&num.text),
            Arg::String { quoted, .. } => f.write_str(quoted),
            Arg::Pipe { pipe, .. } => write!(f, "{pipe}"),
        }
    }
}

/// Go's `parse.IsEmptyTree`: only whitespace text (and comments).
pub(crate) fn is_empty_tree(nodes: &[Node]) -> bool {
    nodes.iter().all(|n| match n {
        Node::Text(t) => t
            .trim_matches([' ', '\t', '\r', '\n', '\x0b', '\x0c'])
            .is_empty(),
        _ => false,
    })
}

// ---------------------------------------------------------------------------------------------

/// A parse error: Go's message (`template: NAME:LINE: MSG`) and the line it names.
#[derive(Debug)]
pub(crate) struct ParseError {
    pub message: String,
    pub line: usize,
}

/// What the parser needs besides the text.
pub(crate) struct ParseConfig<'a> {
    pub left: &'a str,
    pub right: &'a str,
    pub is_func: &'a (dyn Fn(&str) -> bool + Sync),
    pub max_paren_depth: usize,
}

/// Parses `text` as template `name`; returns every tree it defines, the top-level one included.
pub(crate) fn parse(name: &str, text: &str, cfg: &ParseConfig<'_>) -> PResult<Vec<Tree>> {
    let text: Arc<str> = Arc::from(text);
    let toks = lex(&text, cfg.left, cfg.right);
    let mut p = Parser {
        toks,
        i: 0,
        furthest: 0,
        parse_name: name.to_string(),
        cfg,
        vars: vec!["$".to_string()],
        range_depth: 0,
        action_line: 0,
        paren_depth: 0,
        nesting: 0,
        trees: HashMap::new(),
        order: Vec::new(),
    };
    let root = p.parse_top()?;
    p.add(name.to_string(), root)?;
    let Parser {
        mut trees, order, ..
    } = p;
    let mut out = Vec::new();
    for n in order {
        if let Some(root) = trees.remove(&n) {
            out.push(Tree {
                name: n,
                parse_name: name.to_string(),
                text: text.clone(),
                root,
            });
        }
    }
    Ok(out)
}

struct Parser<'a> {
    toks: Vec<Token>,
    i: usize,
    furthest: usize,
    parse_name: String,
    cfg: &'a ParseConfig<'a>,
    vars: Vec<String>,
    range_depth: usize,
    action_line: usize,
    paren_depth: usize,
    nesting: usize,
    trees: HashMap<String, Vec<Node>>,
    order: Vec<String>,
}

type PResult<T> = Result<T, ParseError>;

/// Nesting limit for if/range/with/block: deep enough for any real template, shallow enough that
/// parsing, running and dropping a tree cannot exhaust a thread's stack.
const MAX_NESTING: usize = 2000;

impl Parser<'_> {
    fn tok(&self, i: usize) -> Token {
        match self.toks.get(i).or(self.toks.last()) {
            Some(t) => t.clone(),
            None => Token {
                kind: Kind::Eof,
                val: String::new(),
                pos: 0,
                line: 1,
            },
        }
    }

    fn next(&mut self) -> Token {
        let t = self.tok(self.i);
        if self.i < self.toks.len() {
            self.i += 1;
        }
        self.furthest = self.furthest.max(self.i.saturating_sub(1));
        t
    }

    fn backup(&mut self) {
        self.i = self.i.saturating_sub(1);
    }

    fn peek(&mut self) -> Token {
        let t = self.next();
        self.backup();
        t
    }

    fn next_non_space(&mut self) -> Token {
        loop {
            let t = self.next();
            if t.kind != Kind::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Token {
        let t = self.next_non_space();
        self.backup();
        t
    }

    fn errorf(&self, msg: impl fmt::Display) -> ParseError {
        let line = self.tok(self.furthest).line;
        let message = format!("template: {}:{}: {}", self.parse_name, line, msg);
        ParseError { message, line }
    }

    fn unexpected(&self, t: &Token, context: &str) -> ParseError {
        if t.kind == Kind::Error {
            let mut extra = String::new();
            if self.action_line != 0 && self.action_line != t.line {
                extra = format!(
                    " in action started at {}:{}",
                    self.parse_name, self.action_line
                );
                if t.val.ends_with(" action") {
                    extra = extra[" in action".len()..].to_string();
                }
            }
            return self.errorf(format!("{t}{extra}"));
        }
        self.errorf(format!("unexpected {t} in {context}"))
    }

    fn expect(&mut self, kind: Kind, context: &str) -> PResult<Token> {
        let t = self.next_non_space();
        if t.kind != kind {
            return Err(self.unexpected(&t, context));
        }
        Ok(t)
    }

    fn add(&mut self, name: String, root: Vec<Node>) -> PResult<()> {
        match self.trees.get(&name) {
            Some(existing) if !is_empty_tree(existing) => {
                if !is_empty_tree(&root) {
                    return Err(self.errorf(format!(
                        "template: multiple definition of template {}",
                        quote(&name)
                    )));
                }
            }
            Some(_) => {
                self.trees.insert(name, root);
            }
            None => {
                self.order.push(name.clone());
                self.trees.insert(name, root);
            }
        }
        Ok(())
    }

    fn parse_top(&mut self) -> PResult<Vec<Node>> {
        let mut root = Vec::new();
        while self.peek().kind != Kind::Eof {
            if self.peek().kind == Kind::LeftDelim {
                let save = self.i;
                self.next();
                if self.next_non_space().kind == Kind::Define {
                    self.parse_definition()?;
                    continue;
                }
                self.i = save;
            }
            let n = self.text_or_action()?;
            match n {
                Item::End => return Err(self.errorf("unexpected {{end}}")),
                Item::Else => return Err(self.errorf("unexpected {{else}}")),
                Item::Node(n) => root.push(n),
                Item::Nothing => {}
            }
        }
        Ok(root)
    }

    fn parse_definition(&mut self) -> PResult<()> {
        const CONTEXT: &str = "define clause";
        let t = self.next_non_space();
        if t.kind != Kind::String && t.kind != Kind::RawString {
            return Err(self.unexpected(&t, CONTEXT));
        }
        let name = unquote(&t.val).map_err(|e| self.errorf(e))?;
        self.expect(Kind::RightDelim, CONTEXT)?;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let (list, end) = self.item_list()?;
        self.vars = saved_vars;
        if !matches!(end, Item::End) {
            return Err(self.errorf(format!("unexpected {} in {CONTEXT}", end.describe())));
        }
        self.add(name, list)
    }

    fn item_list(&mut self) -> PResult<(Vec<Node>, Item)> {
        let mut list = Vec::new();
        while self.peek_non_space().kind != Kind::Eof {
            match self.text_or_action()? {
                Item::Node(n) => list.push(n),
                Item::Nothing => {}
                end @ (Item::End | Item::Else) => return Ok((list, end)),
            }
        }
        Err(self.errorf("unexpected EOF"))
    }

    fn text_or_action(&mut self) -> PResult<Item> {
        let t = self.next_non_space();
        match t.kind {
            Kind::Text => Ok(Item::Node(Node::Text(t.val))),
            Kind::LeftDelim => {
                self.action_line = t.line;
                let r = self.action();
                self.action_line = 0;
                r
            }
            _ => Err(self.unexpected(&t, "input")),
        }
    }

    fn action(&mut self) -> PResult<Item> {
        let t = self.next_non_space();
        match t.kind {
            Kind::Block => return self.block_control().map(Item::Node),
            Kind::Break | Kind::Continue => {
                let is_break = t.kind == Kind::Break;
                let word = if is_break { "break" } else { "continue" };
                let t2 = self.next_non_space();
                if t2.kind != Kind::RightDelim {
                    return Err(self.unexpected(&t2, &format!("{{{{{word}}}}}")));
                }
                if self.range_depth == 0 {
                    return Err(self.errorf(format!("{{{{{word}}}}} outside {{{{range}}}}")));
                }
                return Ok(Item::Node(if is_break {
                    Node::Break
                } else {
                    Node::Continue
                }));
            }
            Kind::Else => {
                let p = self.peek_non_space();
                if p.kind == Kind::If || p.kind == Kind::With {
                    return Ok(Item::Else);
                }
                self.expect(Kind::RightDelim, "else")?;
                return Ok(Item::Else);
            }
            Kind::End => {
                self.expect(Kind::RightDelim, "end")?;
                return Ok(Item::End);
            }
            Kind::If => return self.control("if").map(|b| Item::Node(Node::If(b))),
            Kind::Range => return self.control("range").map(|b| Item::Node(Node::Range(b))),
            Kind::With => return self.control("with").map(|b| Item::Node(Node::With(b))),
            Kind::Template => return self.template_control().map(Item::Node),
            _ => {}
        }
        self.backup();
        let pipe = self.pipeline("command", Kind::RightDelim)?;
        Ok(Item::Node(Node::Action(pipe)))
    }

    fn control(&mut self, context: &str) -> PResult<Branch> {
        // Go has no limit here; one keeps hostile input from exhausting the stack.
        if self.nesting >= MAX_NESTING {
            return Err(self.errorf("max nesting depth exceeded"));
        }
        self.nesting += 1;
        let mark = self.vars.len();
        let r = self.control_inner(context);
        self.vars.truncate(mark);
        self.nesting -= 1;
        r
    }

    fn control_inner(&mut self, context: &str) -> PResult<Branch> {
        let pipe = self.pipeline(context, Kind::RightDelim)?;
        if context == "range" {
            self.range_depth += 1;
        }
        let r = self.item_list();
        if context == "range" {
            self.range_depth -= 1;
        }
        let (list, next) = r?;
        let mut else_list = None;
        if let Item::Else = next {
            let pk = self.peek().kind;
            if context == "if" && pk == Kind::If {
                self.next();
                else_list = Some(vec![Node::If(self.control("if")?)]);
            } else if context == "with" && pk == Kind::With {
                self.next();
                else_list = Some(vec![Node::With(self.control("with")?)]);
            } else {
                // Go's `parseControl` counts the range depth for the range's own list only: in its
                // `else` list, `break` and `continue` are outside the range.
                let (list, next) = self.item_list()?;
                if !matches!(next, Item::End) {
                    return Err(self.errorf(format!("expected end; found {}", next.describe())));
                }
                else_list = Some(list);
            }
        }
        Ok(Branch {
            pipe,
            list,
            else_list,
        })
    }

    fn template_name(&mut self, t: &Token, context: &str) -> PResult<String> {
        match t.kind {
            Kind::String | Kind::RawString => unquote(&t.val).map_err(|e| self.errorf(e)),
            _ => Err(self.unexpected(t, context)),
        }
    }

    fn template_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "template clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, CONTEXT)?;
        let mut pipe = None;
        if self.next_non_space().kind != Kind::RightDelim {
            self.backup();
            pipe = Some(self.pipeline(CONTEXT, Kind::RightDelim)?);
        }
        Ok(Node::Template {
            pos: t.pos,
            name,
            pipe,
        })
    }

    fn block_control(&mut self) -> PResult<Node> {
        const CONTEXT: &str = "block clause";
        let t = self.next_non_space();
        let name = self.template_name(&t, CONTEXT)?;
        let pipe = self.pipeline(CONTEXT, Kind::RightDelim)?;
        if self.nesting >= MAX_NESTING {
            return Err(self.errorf("max nesting depth exceeded"));
        }
        self.nesting += 1;
        let saved_vars = std::mem::replace(&mut self.vars, vec!["$".to_string()]);
        let saved_range = std::mem::replace(&mut self.range_depth, 0);
        let r = self.item_list();
        self.vars = saved_vars;
        self.range_depth = saved_range;
        self.nesting -= 1;
        let (list, end) = r?;
        if !matches!(end, Item::End) {
            return Err(self.errorf(format!("unexpected {} in {CONTEXT}", end.describe())));
        }
        self.add(name.clone(), list)?;
        Ok(Node::Template {
            pos: t.pos,
            name,
            pipe: Some(pipe),
        })
    }

    fn pipeline(&mut self, context: &str, end: Kind) -> PResult<Pipe> {
        let start = self.peek_non_space();
        let mut pipe = Pipe {
            pos: start.pos,
            is_assign: false,
            decl: Vec::new(),
            cmds: Vec::new(),
        };
        'decls: loop {
            let v = self.peek_non_space();
            if v.kind != Kind::Variable {
                break;
            }
            let before_var = self.i;
            self.next_non_space();
            let after_var = self.peek();
            let next = self.peek_non_space();
            match next.kind {
                Kind::Assign | Kind::Declare => {
                    pipe.is_assign = next.kind == Kind::Assign;
                    self.next_non_space();
                    pipe.decl.push(v.val.clone());
                    self.vars.push(v.val);
                }
                Kind::Char if next.val == "," => {
                    self.next_non_space();
                    pipe.decl.push(v.val.clone());
                    self.vars.push(v.val);
                    if context == "range" && pipe.decl.len() < 2 {
                        match self.peek_non_space().kind {
                            Kind::Variable | Kind::RightDelim | Kind::RightParen => continue 'decls,
                            _ => return Err(self.errorf("range can only initialize variables")),
                        }
                    }
                    return Err(self.errorf(format!("too many declarations in {context}")));
                }
                _ => {
                    let _ = after_var;
                    self.i = before_var;
                }
            }
            break;
        }
        loop {
            let t = self.next_non_space();
            if t.kind == end {
                self.check_pipeline(&pipe, context)?;
                return Ok(pipe);
            }
            match t.kind {
                Kind::Bool
                | Kind::CharConstant
                | Kind::Complex
                | Kind::Dot
                | Kind::Field
                | Kind::Identifier
                | Kind::Number
                | Kind::Nil
                | Kind::RawString
                | Kind::String
                | Kind::Variable
                | Kind::LeftParen => {
                    self.backup();
                    let c = self.command()?;
                    pipe.cmds.push(c);
                }
                _ => return Err(self.unexpected(&t, context)),
            }
        }
    }

    fn check_pipeline(&self, pipe: &Pipe, context: &str) -> PResult<()> {
        if pipe.cmds.is_empty() {
            return Err(self.errorf(format!("missing value for {context}")));
        }
        for (i, c) in pipe.cmds.iter().enumerate().skip(1) {
            if matches!(
                c.args.first(),
                Some(
                    Arg::Bool { .. }
                        | Arg::Dot { .. }
                        | Arg::Nil { .. }
                        | Arg::Number { .. }
                        | Arg::String { .. }
                )
            ) {
                return Err(self.errorf(format!(
                    "non executable command in pipeline stage {}",
                    i + 1
                )));
            }
        }
        Ok(())
    }

    fn command(&mut self) -> PResult<Command> {
        let pos = self.peek_non_space().pos;
        let mut args = Vec::new();
        loop {
            self.peek_non_space();
            if let Some(a) = self.operand()? {
                args.push(a);
            }
            let t = self.next();
            match t.kind {
                Kind::Space => continue,
                Kind::RightDelim | Kind::RightParen => self.backup(),
                Kind::Pipe => {}
                _ => return Err(self.unexpected(&t, "operand")),
            }
            break;
        }
        if args.is_empty() {
            return Err(self.errorf("empty command"));
        }
        Ok(Command { pos, args })
    }

    fn operand(&mut self) -> PResult<Option<Arg>> {
        let Some(node) = self.term()? else {
            return Ok(None);
        };
        if self.peek().kind != Kind::Field {
            return Ok(Some(node));
        }
        let chain_pos = self.peek().pos;
        let mut fields = Vec::new();
        while self.peek().kind == Kind::Field {
            let t = self.next();
            fields.push(t.val.trim_start_matches('.').to_string());
        }
        Ok(Some(match node {
            Arg::Field { mut idents, .. } => {
                idents.extend(fields);
                Arg::Field {
                    pos: chain_pos,
                    idents,
                }
            }
            Arg::Variable { mut idents, .. } => {
                idents.extend(fields);
                Arg::Variable {
                    pos: chain_pos,
                    idents,
                }
            }
            Arg::Bool { .. }
            | Arg::String { .. }
            | Arg::Number { .. }
            | Arg::Nil { .. }
            | Arg::Dot { .. } => {
                return Err(self.errorf(format!(
                    "unexpected . after term {}",
                    quote(&node.to_string())
                )));
            }
            other => Arg::Chain {
                pos: chain_pos,
                node: Box::new(other),
                fields,
            },
        }))
    }

    fn term(&mut self) -> PResult<Option<Arg>> {
        let t = self.next_non_space();
        let pos = t.pos;
        Ok(Some(match t.kind {
            Kind::Identifier => {
                if !(self.cfg.is_func)(&t.val) {
                    return Err(self.errorf(format!("function {} not defined", quote(&t.val))));
                }
                Arg::Identifier { pos, name: t.val }
            }
            Kind::Dot => Arg::Dot { pos },
            Kind::Nil => Arg::Nil { pos },
            Kind::Variable => {
                let idents: Vec<String> = t.val.split('.').map(str::to_string).collect();
                let first = idents.first().cloned().unwrap_or_default();
                if !self.vars.contains(&first) {
                    return Err(self.errorf(format!("undefined variable {}", quote(&first))));
                }
                Arg::Variable { pos, idents }
            }
            Kind::Field => {
                let idents = t
                    .val
                    .split('.')
                    .filter(|s| !s.is_empty())
                    .map(str::to_string)
                    .collect();
                Arg::Field { pos, idents }
            }
            Kind::Bool => Arg::Bool {
                pos,
                value: t.val == "true",
            },
            Kind::CharConstant | Kind::Complex | Kind::Number => {
                let num = new_number(&t.val, t.kind).map_err(|e| self.errorf(e))?;
                Arg::Number { pos, num }
            }
            Kind::LeftParen => {
                if self.paren_depth >= self.cfg.max_paren_depth {
                    return Err(self.errorf("max expression depth exceeded"));
                }
                self.paren_depth += 1;
                let r = self.pipeline("parenthesized pipeline", Kind::RightParen);
                self.paren_depth -= 1;
                Arg::Pipe { pos, pipe: r? }
            }
            Kind::String | Kind::RawString => {
                let text = unquote(&t.val).map_err(|e| self.errorf(e))?;
                Arg::String {
                    pos,
                    quoted: t.val,
                    text,
                }
            }
            _ => {
                self.backup();
                return Ok(None);
            }
        }))
    }
}

enum Item {
    Node(Node),
    End,
    Else,
    #[allow(dead_code)]
    Nothing,
}

impl Item {
    fn describe(&self) -> &'static str {
        match self {
            Item::End => "{{end}}",
            Item::Else => "{{else}}",
            _ => "node",
        }
    }
}

/// Go's `strconv.Unquote` for the three literal forms templates use.
pub(crate) fn unquote(s: &str) -> Result<String, String> {
    let bad = || "invalid syntax".to_string();
    if let Some(inner) = s.strip_prefix('`').and_then(|r| r.strip_suffix('`')) {
        if inner.contains('`') {
            return Err(bad());
        }
        return Ok(inner.replace('\r', ""));
    }
    let (inner, q) = if let Some(i) = s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        (i, '"')
    } else if let Some(i) = s.strip_prefix('\'').and_then(|r| r.strip_suffix('\'')) {
        (i, '\'')
    } else {
        return Err(bad());
    };
    let mut out = String::new();
    let mut bytes: Vec<u8> = Vec::new();
    let mut chars = inner.chars().peekable();
    let flush = |out: &mut String, bytes: &mut Vec<u8>| {
        if !bytes.is_empty() {
            out.push_str(&String::from_utf8_lossy(bytes));
            bytes.clear();
        }
    };
    while let Some(c) = chars.next() {
        if c == q || c == '\n' {
            return Err(bad());
        }
        if c != '\\' {
            flush(&mut out, &mut bytes);
            out.push(c);
            continue;
        }
        let e = chars.next().ok_or_else(bad)?;
        let simple = match e {
            'a' => Some('\x07'),
            'b' => Some('\x08'),
            'f' => Some('\x0c'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\x0b'),
            '\\' => Some('\\'),
            '\'' if q == '\'' => Some('\''),
            '"' if q == '"' => Some('"'),
            _ => None,
        };
        if let Some(c) = simple {
            flush(&mut out, &mut bytes);
            out.push(c);
            continue;
        }
        let mut take = |n: usize, radix: u32| -> Result<u32, String> {
            let mut v: u32 = 0;
            for _ in 0..n {
                let d = chars
                    .next()
                    .and_then(|c| c.to_digit(radix))
                    .ok_or_else(bad)?;
                v = v
                    .checked_mul(radix)
                    .and_then(|v| v.checked_add(d))
                    .ok_or_else(bad)?;
            }
            Ok(v)
        };
        match e {
            'x' => bytes.push(take(2, 16)? as u8),
            '0'..='7' => {
                let rest = take(2, 8)?;
                let v = (e as u32 - '0' as u32) * 64 + rest;
                if v > 255 {
                    return Err(bad());
                }
                bytes.push(v as u8);
            }
            'u' | 'U' => {
                let v = take(if e == 'u' { 4 } else { 8 }, 16)?;
                flush(&mut out, &mut bytes);
                out.push(char::from_u32(v).ok_or_else(bad)?);
            }
            _ => return Err(bad()),
        }
    }
    flush(&mut out, &mut bytes);
    if q == '\'' && out.chars().count() != 1 && bytes.is_empty() {
        // A character constant holds exactly one character (checked by the caller for numbers).
    }
    Ok(out)
}

/// Go's `parse.newNumber`: every interpretation of a numeric literal.
fn new_number(text: &str, kind: Kind) -> Result<Number, String> {
    let mut n = Number {
        text: text.to_string(),
        ..Number::default()
    };
    match kind {
        Kind::CharConstant => {
            let s = unquote(text).map_err(|_| format!("malformed character constant: {text}"))?;
            let mut it = s.chars();
            let (Some(c), None) = (it.next(), it.next()) else {
                return Err(format!("malformed character constant: {text}"));
            };
            let v = c as i64;
            n.is_int = true;
            n.int = v;
            n.is_uint = true;
            n.is_float = true;
            n.float = v as f64;
            return Ok(n);
        }
        Kind::Complex => {
            let (re, im) = parse_complex(text)
                .ok_or_else(|| format!("illegal number syntax: {}", quote(text)))?;
            n.is_complex = true;
            n.complex = (re, im);
            simplify_complex(&mut n);
            return Ok(n);
        }
        _ => {}
    }
    if let Some(body) = text.strip_suffix('i') {
        let f = parse_go_float(body)
            .ok_or_else(|| format!("illegal number syntax: {}", quote(text)))?;
        n.is_complex = true;
        n.complex = (0.0, f);
        simplify_complex(&mut n);
        return Ok(n);
    }
    if let Some(u) = parse_go_uint(text) {
        n.is_uint = true;
        if i64::try_from(u).is_ok() {
            n.is_int = true;
            n.int = u as i64;
        }
    } else if let Some(i) = text.strip_prefix('-').and_then(parse_go_uint) {
        if i <= i64::MAX as u64 + 1 {
            n.is_int = true;
            n.int = (i as i64).wrapping_neg();
        }
    } else if let Some(i) = text.strip_prefix('+').and_then(parse_go_uint) {
        if let Ok(v) = i64::try_from(i) {
            n.is_int = true;
            n.int = v;
        }
    }
    if n.is_int {
        n.is_float = true;
        n.float = n.int as f64;
    } else if n.is_uint {
        n.is_float = true;
        n.float = parse_go_uint(text).unwrap_or(0) as f64;
    } else if let Some(f) = parse_go_float(text) {
        if !text.contains(['.', 'e', 'E', 'p', 'P']) {
            return Err(format!("integer overflow: {}", quote(text)));
        }
        n.is_float = true;
        n.float = f;
        if f.fract() == 0.0 && f.abs() < 9.2e18 {
            n.is_int = true;
            n.int = f as i64;
        }
    }
    if !n.is_int && !n.is_uint && !n.is_float {
        return Err(format!("illegal number syntax: {}", quote(text)));
    }
    Ok(n)
}

fn simplify_complex(n: &mut Number) {
    if n.complex.1 == 0.0 {
        n.is_float = true;
        n.float = n.complex.0;
        if n.float.fract() == 0.0 && n.float.abs() < 9.2e18 {
            n.is_int = true;
            n.int = n.float as i64;
        }
    }
}

fn parse_complex(text: &str) -> Option<(f64, f64)> {
    let body = text.strip_suffix('i')?;
    // Split at the sign that starts the imaginary part (not a leading sign or an exponent's).
    let bytes = body.as_bytes();
    let mut split = None;
    for i in (1..bytes.len()).rev() {
        if (bytes[i] == b'+' || bytes[i] == b'-')
            && !matches!(bytes[i - 1], b'e' | b'E' | b'p' | b'P')
        {
            split = Some(i);
            break;
        }
    }
    let i = split?;
    Some((parse_go_float(&body[..i])?, parse_go_float(&body[i..])?))
}

/// Go's underscore rule: only between digits (or after a base prefix).
fn strip_underscores(digits: &str, prefixed: bool) -> Option<String> {
    if digits.is_empty() {
        return if prefixed { None } else { Some(String::new()) };
    }
    let b = digits.as_bytes();
    if b.last() == Some(&b'_') || (!prefixed && b.first() == Some(&b'_')) || digits.contains("__") {
        return None;
    }
    Some(digits.replace('_', ""))
}

/// strconv.ParseUint(text, 0, 64).
fn parse_go_uint(text: &str) -> Option<u64> {
    let lower = text.to_ascii_lowercase();
    let (radix, body, prefixed) = if let Some(r) = lower.strip_prefix("0x") {
        (16, r, true)
    } else if let Some(r) = lower.strip_prefix("0o") {
        (8, r, true)
    } else if let Some(r) = lower.strip_prefix("0b") {
        (2, r, true)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..], true)
    } else {
        (10, lower.as_str(), false)
    };
    let digits = strip_underscores(body, prefixed)?;
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    u64::from_str_radix(&digits, radix).ok()
}

/// strconv.ParseFloat(text, 64) with Go's literal syntax (underscores, hex mantissas).
fn parse_go_float(text: &str) -> Option<f64> {
    let (neg, body) = match text.as_bytes().first() {
        Some(b'-') => (true, &text[1..]),
        Some(b'+') => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let v = if let Some(hex) = lower.strip_prefix("0x") {
        let (mant, exp) = hex.split_once('p')?;
        let mant = strip_underscores(mant, true)?;
        let exp: i32 = strip_underscores(exp, false)?.parse().ok()?;
        let (int_part, frac_part) = mant.split_once('.').unwrap_or((&mant, ""));
        if int_part.is_empty() && frac_part.is_empty() {
            return None;
        }
        let mut v = 0f64;
        for c in int_part.chars() {
            v = v * 16.0 + c.to_digit(16)? as f64;
        }
        let mut scale = 1.0 / 16.0;
        for c in frac_part.chars() {
            v += c.to_digit(16)? as f64 * scale;
            scale /= 16.0;
        }
        v * 2f64.powi(exp)
    } else {
        if lower.is_empty()
            || !lower
                .bytes()
                .all(|b| b.is_ascii_digit() || matches!(b, b'.' | b'e' | b'_' | b'+' | b'-'))
        {
            if lower == "inf" || lower == "infinity" {
                return Some(if neg {
                    f64::NEG_INFINITY
                } else {
                    f64::INFINITY
                });
            }
            return None;
        }
        let cleaned = strip_underscores(&lower, lower.starts_with('0'))?;
        if cleaned.starts_with('e') || cleaned == "." {
            return None;
        }
        cleaned.parse::<f64>().ok()?
    };
    Some(if neg { -v } else { v })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(text: &str) -> Result<String, String> {
        let is_func = |n: &str| n == "printf";
        let cfg = ParseConfig {
            left: "",
            right: "",
            is_func: &is_func,
            max_paren_depth: 100,
        };
        let trees = parse("t", text, &cfg).map_err(|e| e.message)?;
        Ok(trees
            .iter()
            .find(|t| t.name == "t")
            .map(|t| list_string(&t.root, true))
            .unwrap_or_default())
    }

    #[test]
    fn prints_trees_as_go() {
        assert_eq!(
            tree("{{if .X}}a{{else if .Y}}b{{end}}").unwrap(),
            "{{if .X}}\"a\"{{else}}{{if .Y}}\"b\"{{end}}{{end}}"
        );
        assert_eq!(tree("{{$x := .X|.Y}}").unwrap(), "{{$x := .X | .Y}}");
        assert_eq!(tree("x \r\n\t{{- 3 -}}\n\n\ty").unwrap(), "\"x\"{{3}}\"y\"");
    }

    #[test]
    fn reports_errors_with_lines() {
        assert_eq!(
            tree("line1\n{{").unwrap_err(),
            "template: t:2: unclosed action"
        );
        assert!(tree("{{undefined}}")
            .unwrap_err()
            .contains("function \"undefined\" not defined"));
    }

    #[test]
    fn numbers_follow_go_syntax() {
        assert_eq!(new_number("0x1_23", Kind::Number).unwrap().int, 291);
        assert_eq!(new_number("0377", Kind::Number).unwrap().int, 255);
        assert_eq!(new_number("+0x1.ep+2", Kind::Number).unwrap().float, 7.5);
        assert_eq!(
            new_number("0_0_1_2_3.4", Kind::Number).unwrap().float,
            123.4
        );
        assert!(new_number("1.E", Kind::Number).is_err());
    }
}
