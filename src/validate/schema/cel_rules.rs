//! `x-kubernetes-validations`: a CRD's CEL rules, checked as a JSON Schema keyword with `self`
//! bound to the value the rule sits on.
//!
//! Only a rule that evaluates cleanly to `false` is a violation. A rule this CEL implementation
//! cannot compile or evaluate (a Kubernetes library function it lacks, such as `quantity()` or
//! `url()`) is passed over rather than guessed at, and so is one whose estimated cost on the
//! value at hand passes Kubernetes' per-call limit (`cel_cost`: the crate has no limit of its
//! own, and the API server would refuse such a CRD); transition rules (`oldSelf`) do not apply
//! to a new object.

use std::sync::{Arc, OnceLock};

use jsonschema::{Keyword, ValidationError};
use serde_json::{Map, Value};

pub(crate) const KEYWORD: &str = "x-kubernetes-validations";

/// The CEL environment Kubernetes evaluates rules in, as far as the `cel` crate has it: the
/// standard library with the strings and lists extensions.
fn environment() -> Option<Arc<cel::Env>> {
    static ENV: OnceLock<Option<Arc<cel::Env>>> = OnceLock::new();
    ENV.get_or_init(|| {
        let mut env = cel::Env::stdlib();
        env.add_extension(cel::extensions::strings).ok()?;
        env.add_extension(cel::extensions::lists).ok()?;
        Some(Arc::new(env))
    })
    .clone()
}

struct Rule {
    /// Compiled when first evaluated: a CRD has many rules on branches an object never takes.
    program: OnceLock<Option<cel::Program>>,
    text: String,
    message: Option<String>,
}

pub(crate) struct CelRules {
    env: Option<Arc<cel::Env>>,
    rules: Vec<Rule>,
}

/// The keyword's factory for `jsonschema::options().with_keyword`.
pub(crate) fn factory<'a>(
    _parent: &'a Map<String, Value>,
    value: &'a Value,
    _location: jsonschema::paths::Location,
) -> Result<Box<dyn for<'i> Keyword<'i>>, ValidationError<'a>> {
    Ok(Box::new(CelRules::new(value)))
}

impl CelRules {
    fn new(rules: &Value) -> Self {
        let rules = rules
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|rule| {
                let text = rule.get("rule")?.as_str()?;
                if text.contains("oldSelf") {
                    return None;
                }
                Some(Rule {
                    program: OnceLock::new(),
                    text: text.to_string(),
                    message: rule
                        .get("message")
                        .and_then(Value::as_str)
                        .map(str::to_string),
                })
            })
            .collect();
        CelRules {
            env: environment(),
            rules,
        }
    }

    fn failing<'s>(&'s self, instance: &Value) -> impl Iterator<Item = &'s Rule> + 's {
        let (largest, longest) = crate::cel_cost::input_bounds(instance);
        let context = self.env.as_ref().and_then(|env| {
            let value = cel::to_value(instance).ok()?;
            let mut context = cel::Context::with_env(env.clone());
            context.add_variable_from_value("self", value);
            Some(context)
        });
        self.rules.iter().filter(move |rule| {
            let Some(context) = context.as_ref() else {
                return false;
            };
            let program = rule
                .program
                .get_or_init(|| self.env.as_ref()?.compile(&rule.text).ok());
            // A rule too costly to evaluate on this value is passed over, as one this
            // implementation cannot evaluate is.
            program.as_ref().is_some_and(|program| {
                crate::cel_cost::estimate(program.expression(), largest, longest)
                    <= crate::cel_cost::COST_LIMIT
                    && matches!(program.execute(context), Ok(cel::Value::Bool(false)))
            })
        })
    }
}

fn violation(rule: &Rule) -> ValidationError<'static> {
    ValidationError::custom(match &rule.message {
        Some(message) => format!("{message} (rule `{}`)", rule.text),
        None => format!("failed rule: {}", rule.text),
    })
}

impl<'i> Keyword<'i> for CelRules {
    fn validate(&self, instance: &'i Value) -> Result<(), ValidationError<'i>> {
        match self.failing(instance).next() {
            Some(rule) => Err(violation(rule)),
            None => Ok(()),
        }
    }

    fn is_valid(&self, instance: &'i Value) -> bool {
        self.failing(instance).next().is_none()
    }

    fn iter_errors(
        &self,
        instance: &'i Value,
    ) -> Box<dyn Iterator<Item = ValidationError<'i>> + 'i> {
        let errors: Vec<ValidationError<'i>> = self.failing(instance).map(violation).collect();
        Box::new(errors.into_iter())
    }
}
