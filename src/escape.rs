//! Text from a repository made inert for whatever reads each output: one function per consumer
//! (a terminal, a GitHub Actions log and its workflow commands, XML, JSON read by people,
//! markdown and HTML in a pull request comment, Graphviz and Mermaid labels). Every sink that
//! prints a repository-supplied string (an object's name or namespace, a file path, a message that
//! quotes a template's `fail` text, a value) passes it through the function of its consumer;
//! nothing else in the crate escapes output.
//!
//! Characters a reader cannot see but a consumer acts on (C0 and C1 controls, DEL, Unicode's
//! bidirectional formatting characters and line and paragraph separators) are shown in one visible
//! form everywhere: `\n`, `\r` and `\t` for those three, `\u{1b}` (hexadecimal) for the others, as
//! Rust's `escape_debug` spells them. Not for: quoting YAML or JSON documents (their emitters
//! escape what their syntax needs).

use std::borrow::Cow;
use std::fmt::Write;

/// Whether `c` is shown in its visible form: a control character, or one that reorders or breaks
/// the text around it without being seen (Trojan Source's bidirectional overrides).
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'
                ..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{feff}' | '\u{fffe}' | '\u{ffff}'
        )
}

/// Appends the visible form of `c`.
fn push_visible(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        _ => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` with every hidden character in its visible form, except those `keep` accepts.
fn visible_except(text: &str, keep: fn(char) -> bool) -> Cow<'_, str> {
    if !text.chars().any(|c| is_hidden(c) && !keep(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if is_hidden(c) && !keep(c) {
            push_visible(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// For a terminal, text of several lines: hidden characters shown, line breaks and tabs kept.
pub fn terminal(text: &str) -> Cow<'_, str> {
    visible_except(text, |c| c == '\n' || c == '\t')
}

/// For a terminal, text that must stay on one line (a table cell, a one-line summary): line
/// breaks and tabs shown too.
pub fn terminal_line(text: &str) -> Cow<'_, str> {
    visible_except(text, |_| false)
}

/// Text printed into a GitHub Actions log outside offlux's own workflow commands (stderr, human
/// output): hidden characters shown as on a terminal, and whatever the runner would read as a
/// command made inert. The runner reads a line as a command when it starts with `::` once leading
/// white space is trimmed (`ActionCommand.TryParseV2`), or when it holds `##[` anywhere (the
/// legacy `ActionCommand.TryParse`, still tried after the first); those characters are
/// percent-escaped as a command's data would be (`%3A%3A`, `%23%23[`).
pub fn github_log(text: &str) -> String {
    let text = terminal(text);
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let trimmed = line.trim_start();
        let line = match trimmed.strip_prefix("::") {
            Some(rest) => {
                out.push_str(&line[..line.len() - trimmed.len()]);
                out.push_str("%3A%3A");
                rest
            }
            None => line,
        };
        out.push_str(&line.replace("##[", "%23%23["));
    }
    out
}

/// A GitHub workflow command's data (the message after `::`): `%`, CR and LF percent-escaped, as
/// the runner's `ActionCommand.UnescapeData` reverses, other hidden characters shown.
pub fn github_data(text: &str) -> String {
    let text = visible_except(text, |c| c == '\n' || c == '\r' || c == '\t');
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// A GitHub workflow command's property value (`file=`, `title=`): also `:` and `,` escaped
/// (`ActionCommand.UnescapeProperty`).
pub fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

/// Text for an XML attribute value or element: the five special characters as entities, line
/// breaks and tabs as character references (an attribute keeps them), and the characters XML 1.0
/// does not allow (most C0 controls, U+FFFE, U+FFFF) or a reader cannot see, in their visible form.
pub fn xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            '\t' => out.push_str("&#9;"),
            c if is_hidden(c) => push_visible(&mut out, c),
            c => out.push(c),
        }
    }
    out
}

/// Text a person reads in a JSON report (SARIF's `message.text`): hidden characters shown, line
/// breaks and tabs kept. JSON's own escaping is the serialiser's.
pub fn plain_text(text: &str) -> Cow<'_, str> {
    terminal(text)
}

/// The longest run of `mark` in `text`.
fn longest_run(text: &str, mark: char) -> usize {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == mark { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// Markdown (GitHub's) for a string shown in running text or a heading: a code span, in which
/// nothing is read as markup (no mention, link, image, emphasis, heading, HTML tag or entity),
/// on one line, delimited by more backticks than the text holds in a row. Empty text is nothing.
pub fn markdown_code(text: &str) -> String {
    code_span(&terminal_line(text))
}

/// Markdown for running text inside a line (not at its start): hidden characters shown, and the
/// characters inline markdown or HTML would read as markup backslash-escaped, so the text reads
/// as written.
pub fn markdown_text(text: &str) -> String {
    let line = terminal_line(text);
    let mut out = String::with_capacity(line.len());
    for c in line.chars() {
        if "\\`*_[]<>|~&".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// Markdown for a table cell: a code span as `markdown_code`, with `|` escaped (GitHub reads a
/// table's `\|` as `|` inside a code span, and a bare `|` as the next cell).
pub fn markdown_cell(text: &str) -> String {
    code_span(&terminal_line(text).replace('|', "\\|"))
}

fn code_span(text: &str) -> String {
    if text.is_empty() {
        return String::new();
    }
    let ticks = "`".repeat(longest_run(text, '`') + 1);
    // A span's content loses one space at each end when it has one at both; padding both ends
    // keeps a backtick or a space at either end as written.
    let pad = if text.starts_with(['`', ' ']) || text.ends_with(['`', ' ']) {
        " "
    } else {
        ""
    };
    format!("{ticks}{pad}{text}{pad}{ticks}")
}

/// A markdown fenced code block of `info` holding `text` (several lines): hidden characters shown,
/// fenced by more backticks than any run in the text, so no line of it can close the block.
pub fn markdown_block(info: &str, text: &str) -> String {
    let text = terminal(text);
    let fence = "`".repeat((longest_run(&text, '`') + 1).max(3));
    let newline = if text.ends_with('\n') || text.is_empty() {
        ""
    } else {
        "\n"
    };
    format!("{fence}{info}\n{text}{newline}{fence}\n")
}

/// HTML (inside a `<summary>`, where markdown is not read) for a string: in `<code>`, which
/// GitHub neither mentions nor links inside, with `& < > " '` as entities, on one line.
pub fn html_code(text: &str) -> String {
    let text = terminal_line(text);
    let mut out = String::with_capacity(text.len() + 13);
    out.push_str("<code>");
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out.push_str("</code>");
    out
}

/// Text in an HTML page (an element's content or a quoted attribute value): `& < > " '` as
/// entities, and characters a reader cannot see shown as `terminal` shows them. Line breaks
/// are kept.
pub fn html_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 8);
    for line in text.split_inclusive('\n') {
        let (line, newline) = match line.strip_suffix('\n') {
            Some(line) => (line, "\n"),
            None => (line, ""),
        };
        for c in terminal_line(line).chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '"' => out.push_str("&quot;"),
                '\'' => out.push_str("&#39;"),
                c => out.push(c),
            }
        }
        out.push_str(newline);
    }
    out
}

/// A Graphviz quoted string's content: `\` and `"` escaped, on one line.
pub fn dot_string(text: &str) -> String {
    terminal_line(text)
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
}

/// A Mermaid node label inside `["…"]`: Mermaid's entity codes for the characters it or the HTML
/// it renders would read (`"`, `<`, `>`, `&`, `#`), on one line.
pub fn mermaid_label(text: &str) -> String {
    let text = terminal_line(text);
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_text_reads_as_written() {
        assert_eq!(
            markdown_text("base (1a2b) *x* [l](u) <b>a|b</b>"),
            "base (1a2b) \\*x\\* \\[l\\](u) \\<b\\>a\\|b\\</b\\>"
        );
    }

    #[test]
    fn hidden_characters_have_one_visible_form() {
        assert_eq!(terminal("a\x1bb\x07\n\tc"), "a\\u{1b}b\\u{7}\n\tc");
        assert_eq!(terminal_line("a\nb\tc\r"), "a\\nb\\tc\\r");
        assert_eq!(terminal_line("\u{202e}x\u{85}"), "\\u{202e}x\\u{85}");
        assert!(matches!(terminal("plain é"), Cow::Borrowed(_)));
    }

    #[test]
    fn no_line_of_a_github_log_starts_a_command() {
        let text = github_log("error: x\n::error file=a::forged\n  ::warning::b\nsee ##[error]c");
        assert_eq!(
            text,
            "error: x\n%3A%3Aerror file=a::forged\n  %3A%3Awarning::b\nsee %23%23[error]c"
        );
        for line in text.lines() {
            assert!(!line.trim_start().starts_with("::") && !line.contains("##["));
        }
        // A carriage return, which the runner also reads as a line break, is shown.
        assert_eq!(github_log("a\r::error::x"), "a\\r::error::x");
        // Unicode white space is trimmed by the runner too.
        assert!(github_log("\u{3000}::error::x").starts_with("\u{3000}%3A%3A"));
    }

    #[test]
    fn workflow_commands_escape_what_github_reads_as_syntax() {
        assert_eq!(github_data("a%b\nc\r\x1b"), "a%25b%0Ac%0D\\u{1b}");
        assert_eq!(github_property("x: y, z"), "x%3A y%2C z");
    }

    #[test]
    fn xml_text_is_well_formed() {
        assert_eq!(
            xml("<a b=\"c\" d='e'>&\n\x1b\u{ffff}"),
            "&lt;a b=&quot;c&quot; d=&apos;e&apos;&gt;&amp;&#10;\\u{1b}\\u{ffff}"
        );
    }

    #[test]
    fn markdown_holds_repository_text_in_code() {
        assert_eq!(markdown_code("@team"), "`@team`");
        assert_eq!(markdown_code("a`b"), "``a`b``");
        assert_eq!(markdown_code("`x"), "`` `x ``");
        assert_eq!(markdown_code(""), "");
        assert_eq!(markdown_cell("a|b\nc"), "`a\\|b\\nc`");
        assert_eq!(
            markdown_block("diff", "a\n```\n"),
            "````diff\na\n```\n````\n"
        );
        assert_eq!(
            html_code("<img src=x onerror=alert(1)> @x & 'y'"),
            "<code>&lt;img src=x onerror=alert(1)&gt; @x &amp; &#39;y&#39;</code>"
        );
    }

    #[test]
    fn graph_labels_stay_in_their_quotes() {
        assert_eq!(dot_string("a\"b\\\nc"), "a\\\"b\\\\\\\\nc");
        assert_eq!(
            mermaid_label("a\"]\nclick#<b>"),
            "a#quot;]\\nclick#35;#lt;b#gt;"
        );
    }
}
