//! `.Files` and the other methods Helm's render context offers templates: `Get`, `GetBytes`,
//! `Glob`, `Lines`, `AsConfig`, `AsSecrets` on `.Files`, and `Has` on
//! `.Capabilities.APIVersions`.
//!
//! Template data has no methods of its own, so `.Files` is a map of file name to contents, and the
//! method hook takes any map of strings that has no key of the method's name for one (templates
//! range over `.Files.Glob`, so the map may hold nothing but files).

use std::collections::BTreeMap;
use std::sync::OnceLock;

use base64::Engine as _;

use super::ChartFile;
use offlux_template::funcs::{helm_functions, sprig_methods, FuncEnv, FuncError, Function};
use offlux_template::Value;

/// `.Files` for a chart's files.
pub(crate) fn files_value(files: &[ChartFile]) -> Value {
    Value::map(
        files
            .iter()
            .map(|f| {
                let text = text_of(&f.data);
                (f.name.clone(), Value::String(text))
            })
            .collect(),
    )
}

/// A file's bytes as template text (invalid UTF-8 replaced, as everywhere offlux reads text).
/// Valid text is copied as it is: `from_utf8`'s check is many times faster than the lossy
/// decoder's on the large files charts carry.
pub(crate) fn text_of(data: &[u8]) -> String {
    match std::str::from_utf8(data) {
        Ok(text) => text.to_owned(),
        Err(_) => String::from_utf8_lossy(data).into_owned(),
    }
}

fn as_files(value: &Value) -> Option<&BTreeMap<String, Value>> {
    match value {
        Value::Map(map) if map.values().all(|v| matches!(v, Value::String(_))) => Some(map),
        _ => None,
    }
}

fn file_entries(files: &BTreeMap<String, Value>) -> impl Iterator<Item = (&String, &str)> {
    files.iter().filter_map(|(name, v)| match v {
        Value::String(text) => Some((name, text.as_str())),
        _ => None,
    })
}

fn string_arg(method: &str, args: &[Value]) -> Result<String, FuncError> {
    match args {
        [Value::String(s)] => Ok(s.clone()),
        [other] => Err(FuncError(format!(
            "wrong type for value; expected string; got {}",
            other.go_type_name()
        ))),
        _ => Err(FuncError(format!(
            "wrong number of args for {method}: want 1 got {}",
            args.len()
        ))),
    }
}

fn to_yaml(env: &mut FuncEnv, value: Value) -> Result<Value, FuncError> {
    static TO_YAML: OnceLock<Option<Function>> = OnceLock::new();
    let f = TO_YAML.get_or_init(|| {
        helm_functions()
            .into_iter()
            .find(|(name, _)| *name == "toYaml")
            .map(|(_, f)| f)
    });
    match f {
        Some(f) => f(env, &[value]),
        None => Err(FuncError("toYaml is not available".into())),
    }
}

fn basename(name: &str) -> String {
    name.rsplit('/').next().unwrap_or(name).to_string()
}

fn files_method(
    env: &mut FuncEnv,
    files: &BTreeMap<String, Value>,
    name: &str,
    args: &[Value],
) -> Option<Result<Value, FuncError>> {
    let result = match name {
        "Get" | "GetBytes" => string_arg(name, args).map(|path| {
            let text = file_entries(files)
                .find(|(n, _)| **n == path)
                .map(|(_, t)| t.to_string())
                .unwrap_or_default();
            Value::String(text)
        }),
        "Lines" => string_arg(name, args).map(|path| {
            let text = file_entries(files)
                .find(|(n, _)| **n == path)
                .map(|(_, t)| t);
            let lines = match text {
                None | Some("") => Vec::new(),
                Some(t) => t
                    .strip_suffix('\n')
                    .unwrap_or(t)
                    .split('\n')
                    .map(|l| Value::String(l.to_string()))
                    .collect(),
            };
            Value::List(lines)
        }),
        "Glob" => string_arg(name, args).map(|pattern| {
            // Helm globs with `**` when gobwas/glob refuses the pattern
            let matcher = offlux_go::glob::gobwas::Glob::new(&pattern)
                .unwrap_or_else(|_| offlux_go::glob::gobwas::Glob::everything());
            let map: BTreeMap<String, Value> = file_entries(files)
                .filter(|(n, _)| matcher.is_match(n.as_str()))
                .map(|(n, t)| (n.clone(), Value::String(t.to_string())))
                .collect();
            Value::map(map)
        }),
        "AsConfig" | "AsSecrets" => {
            if !args.is_empty() {
                return Some(Err(FuncError(format!(
                    "wrong number of args for {name}: want 0 got {}",
                    args.len()
                ))));
            }
            let secrets = name == "AsSecrets";
            let map: BTreeMap<String, Value> = file_entries(files)
                .map(|(n, t)| {
                    let v = if secrets {
                        base64::engine::general_purpose::STANDARD.encode(t.as_bytes())
                    } else {
                        t.to_string()
                    };
                    (basename(n), Value::String(v))
                })
                .collect();
            if map.is_empty() {
                // Helm's toYAML of an empty map prints `{}`.
                Ok(Value::String("{}".into()))
            } else {
                to_yaml(env, Value::map(map))
            }
        }
        _ => return None,
    };
    Some(result)
}

/// The method hook for Helm's render context (see `template::Set::with_methods`).
pub(crate) fn helm_methods(
    env: &mut FuncEnv,
    receiver: &Value,
    name: &str,
    args: &[Value],
) -> Option<Result<Value, FuncError>> {
    if let Some(files) = as_files(receiver) {
        if let Some(result) = files_method(env, files, name, args) {
            return Some(result);
        }
    }
    if let (Value::List(items), "Has") = (receiver, name) {
        let wanted = match string_arg(name, args) {
            Ok(w) => w,
            Err(e) => return Some(Err(e)),
        };
        let found = items
            .iter()
            .any(|i| matches!(i, Value::String(s) if *s == wanted));
        return Some(Ok(Value::Bool(found)));
    }
    sprig_methods(env, receiver, name, args)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files() -> Value {
        files_value(&[
            ChartFile {
                name: "config/a.ini".into(),
                data: b"x=1\ny=2\n".to_vec().into(),
            },
            ChartFile {
                name: "config/sub/b.ini".into(),
                data: b"z".to_vec().into(),
            },
            ChartFile {
                name: "README.md".into(),
                data: b"hi".to_vec().into(),
            },
        ])
    }

    fn call(name: &str, args: &[Value]) -> Value {
        let mut env = FuncEnv {
            rng_state: 0,
            now_unix: 0,
            lookups: 0,
            run: None,
        };
        helm_methods(&mut env, &files(), name, args)
            .expect("a method")
            .expect("no error")
    }

    #[test]
    fn get_lines_and_missing_files() {
        let s = |t: &str| Value::String(t.into());
        assert_eq!(call("Get", &[s("README.md")]), s("hi"));
        assert_eq!(call("Get", &[s("nope")]), s(""));
        assert_eq!(
            call("Lines", &[s("config/a.ini")]),
            Value::List(vec![s("x=1"), s("y=2")])
        );
        assert_eq!(call("Lines", &[s("nope")]), Value::List(vec![]));
    }

    #[test]
    fn glob_does_not_cross_directories_and_as_config_uses_base_names() {
        let s = |t: &str| Value::String(t.into());
        let globbed = call("Glob", &[s("config/*")]);
        let names: Vec<String> = match &globbed {
            Value::Map(m) => file_entries(m).map(|(n, _)| n.clone()).collect(),
            _ => Vec::new(),
        };
        assert_eq!(names, ["config/a.ini"]);
        let mut env = FuncEnv {
            rng_state: 0,
            now_unix: 0,
            lookups: 0,
            run: None,
        };
        let config = helm_methods(&mut env, &globbed, "AsConfig", &[])
            .unwrap()
            .unwrap();
        assert_eq!(config, s("a.ini: |\n  x=1\n  y=2"));
        let secrets = helm_methods(&mut env, &globbed, "AsSecrets", &[])
            .unwrap()
            .unwrap();
        assert_eq!(secrets, s("a.ini: eD0xCnk9Mgo="));
    }

    #[test]
    fn b5_files_glob_doublestar() {
        // helm template: `**` crosses directories, `**/` needs one, a pattern gobwas/glob
        // refuses selects every file
        let s = |t: &str| Value::String(t.into());
        let names = |pattern: &str| -> Vec<String> {
            match call("Glob", &[s(pattern)]) {
                Value::Map(m) => file_entries(&m).map(|(n, _)| n.clone()).collect(),
                _ => Vec::new(),
            }
        };
        assert_eq!(names("config/**.ini"), ["config/a.ini", "config/sub/b.ini"]);
        assert_eq!(names("config/**/*.ini"), ["config/sub/b.ini"]);
        assert_eq!(
            names("**"),
            ["README.md", "config/a.ini", "config/sub/b.ini"]
        );
        assert_eq!(names("config/["), names("**"));
    }

    #[test]
    fn api_versions_has_is_exact_membership() {
        let mut env = FuncEnv {
            rng_state: 0,
            now_unix: 0,
            lookups: 0,
            run: None,
        };
        let apis = Value::List(vec![Value::String("apps/v1".into())]);
        let has = |v: &str, env: &mut FuncEnv| {
            helm_methods(env, &apis, "Has", &[Value::String(v.into())])
                .unwrap()
                .unwrap()
        };
        assert_eq!(has("apps/v1", &mut env), Value::Bool(true));
        assert_eq!(has("apps/v1/Deployment", &mut env), Value::Bool(false));
    }
}
