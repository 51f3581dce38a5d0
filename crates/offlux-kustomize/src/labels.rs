//! Kubernetes label selectors, in both their spellings: the text form
//! (`a=b,c!=d,e,!f,g in (x,y),h notin (z)`) as `kubectl -l` and kustomize's patch and replacement
//! targets write it, and the `LabelSelector` object (`matchLabels`, `matchExpressions`) as API
//! objects hold it. Read once, then matched against any label lookup. One reader for the whole
//! program (`offlux get -l`, kustomize's `labelSelector`, the selectors of operators' objects).
//!
//! Not for: field selectors.

use offlux_yaml::Node;

/// One requirement of a selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Requirement {
    Equals(String, String),
    NotEquals(String, String),
    Exists(String),
    NotExists(String),
    In(String, Vec<String>),
    NotIn(String, Vec<String>),
}

impl Requirement {
    fn key(&self) -> &str {
        match self {
            Requirement::Equals(k, _)
            | Requirement::NotEquals(k, _)
            | Requirement::Exists(k)
            | Requirement::NotExists(k)
            | Requirement::In(k, _)
            | Requirement::NotIn(k, _) => k,
        }
    }

    fn matches<'a>(&self, label: &impl Fn(&str) -> Option<&'a str>) -> bool {
        match self {
            Requirement::Equals(k, v) => label(k) == Some(v.as_str()),
            Requirement::NotEquals(k, v) => label(k) != Some(v.as_str()),
            Requirement::Exists(k) => label(k).is_some(),
            Requirement::NotExists(k) => label(k).is_none(),
            Requirement::In(k, set) => label(k).is_some_and(|v| set.iter().any(|s| s == v)),
            Requirement::NotIn(k, set) => label(k).is_none_or(|v| !set.iter().any(|s| s == v)),
        }
    }
}

/// A parsed selector: every requirement must hold (an empty selector matches everything).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    pub requirements: Vec<Requirement>,
}

impl Selector {
    /// `text` as kustomize reads a target's `labelSelector`: every term is a requirement, an
    /// empty key included (it then matches no label).
    pub fn parse_lenient(text: &str) -> Selector {
        let requirements = split_terms(text)
            .iter()
            .map(|term| term.trim())
            .filter(|term| !term.is_empty())
            .map(requirement)
            .collect();
        Selector { requirements }
    }

    /// `text` as a command-line selector: a requirement without a key is an error.
    pub fn parse(text: &str) -> Result<Selector, String> {
        let selector = Selector::parse_lenient(text);
        if selector.requirements.iter().any(|r| r.key().is_empty()) {
            return Err(format!("invalid label selector `{text}`: empty key"));
        }
        Ok(selector)
    }

    /// A `LabelSelector` object, as `metav1.LabelSelectorAsSelector` reads it: every `matchLabels`
    /// pair and every `matchExpressions` entry must hold, and an empty selector selects
    /// everything. `None` when the object cannot be a selector (an operator other than `In`,
    /// `NotIn`, `Exists` and `DoesNotExist`, a label value that is not text): it selects nothing.
    pub fn from_label_selector(selector: &Node) -> Option<Selector> {
        let mut requirements = Vec::new();
        if let Some(labels) = selector.get("matchLabels").and_then(Node::as_mapping) {
            for (key, value) in labels.iter() {
                requirements.push(Requirement::Equals(
                    key.to_string(),
                    value.as_str()?.to_string(),
                ));
            }
        }
        let expressions = selector.get("matchExpressions").and_then(Node::as_sequence);
        for expression in expressions
            .map(|list| list.items.as_slice())
            .unwrap_or_default()
        {
            let key = expression
                .get("key")
                .and_then(Node::as_str)
                .unwrap_or("")
                .to_string();
            let values: Vec<String> = expression
                .get("values")
                .and_then(Node::as_sequence)
                .map(|v| {
                    v.items
                        .iter()
                        .filter_map(Node::as_str)
                        .map(str::to_string)
                        .collect()
                })
                .unwrap_or_default();
            requirements.push(match expression.get("operator").and_then(Node::as_str)? {
                "In" => Requirement::In(key, values),
                "NotIn" => Requirement::NotIn(key, values),
                "Exists" => Requirement::Exists(key),
                "DoesNotExist" => Requirement::NotExists(key),
                _ => return None,
            });
        }
        Some(Selector { requirements })
    }

    /// Whether the labels `label` looks up meet every requirement.
    pub fn matches<'a>(&self, label: impl Fn(&str) -> Option<&'a str>) -> bool {
        self.requirements.iter().all(|r| r.matches(&label))
    }
}

fn requirement(term: &str) -> Requirement {
    let pair = |k: &str, v: &str| (k.trim().to_owned(), v.trim().to_owned());
    if let Some((k, v)) = term.split_once("!=") {
        let (k, v) = pair(k, v);
        Requirement::NotEquals(k, v)
    } else if let Some((k, v)) = term.split_once("==").or_else(|| term.split_once('=')) {
        let (k, v) = pair(k, v);
        Requirement::Equals(k, v)
    } else if let Some(k) = term.strip_prefix('!') {
        Requirement::NotExists(k.trim().to_owned())
    } else if let Some((k, set)) = term.split_once(" notin ") {
        Requirement::NotIn(k.trim().to_owned(), parse_set(set))
    } else if let Some((k, set)) = term.split_once(" in ") {
        Requirement::In(k.trim().to_owned(), parse_set(set))
    } else {
        Requirement::Exists(term.to_owned())
    }
}

/// The terms of a selector: commas inside a `( … )` set do not split.
fn split_terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut current = String::new();
    for c in text.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(std::mem::take(&mut current));
                continue;
            }
            _ => {}
        }
        current.push(c);
    }
    out.push(current);
    out
}

fn parse_set(text: &str) -> Vec<String> {
    text.trim()
        .trim_start_matches('(')
        .trim_end_matches(')')
        .split(',')
        .map(|x| x.trim().to_string())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels<'a>(pairs: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<&'a str> + 'a {
        move |k| pairs.iter().find(|(key, _)| *key == k).map(|(_, v)| *v)
    }

    #[test]
    fn a_label_selector_object_reads_as_its_text_form() {
        let app = [("app", "web"), ("tier", "front")];
        for (yaml, expected) in [
            ("{}", Some(true)),
            ("matchLabels: {app: web}", Some(true)),
            ("matchLabels: {app: api}", Some(false)),
            (
                "matchExpressions: [{key: tier, operator: In, values: [front, back]}]",
                Some(true),
            ),
            (
                "matchExpressions: [{key: tier, operator: NotIn, values: [front]}]",
                Some(false),
            ),
            (
                "matchExpressions: [{key: team, operator: DoesNotExist}]",
                Some(true),
            ),
            (
                "{matchLabels: {app: web}, matchExpressions: [{key: team, operator: Exists}]}",
                Some(false),
            ),
            (
                "matchExpressions: [{key: tier, operator: Gt, values: ['1']}]",
                None,
            ),
        ] {
            let node = offlux_yaml::parse_stream(yaml, &offlux_yaml::ParseOptions::default())
                .unwrap()
                .remove(0)
                .root;
            let selector = Selector::from_label_selector(&node);
            assert_eq!(
                selector.map(|s| s.matches(labels(&app))),
                expected,
                "{yaml}"
            );
        }
    }

    #[test]
    fn every_form_parses_and_matches() {
        let app = [("app", "web"), ("tier", "front")];
        for (text, expected) in [
            ("app=web", true),
            ("app==web", true),
            ("app!=web", false),
            ("app", true),
            ("!app", false),
            ("!team", true),
            ("tier in (front, back)", true),
            ("tier notin (front)", false),
            ("team notin (x)", true),
            ("app=web, tier in (back,front)", true),
            ("", true),
        ] {
            let selector = Selector::parse(text).unwrap_or_else(|e| panic!("{text}: {e}"));
            assert_eq!(selector.matches(labels(&app)), expected, "{text}");
        }
    }

    #[test]
    fn a_command_line_selector_needs_keys() {
        assert!(Selector::parse("=x").is_err());
        assert!(Selector::parse("app=web,!").is_err());
        // kustomize's reading keeps the term; no label has an empty key.
        assert!(!Selector::parse_lenient("=x").matches(labels(&[("a", "x")])));
    }
}
