//! A CRD's structural OpenAPI v3 schema as a JSON Schema (draft 2020-12), with the API server's
//! reading of the Kubernetes extensions:
//!
//! - a field not declared under `properties` is an error (server-side apply, which Flux uses,
//!   rejects it: "field not declared in schema"), unless `x-kubernetes-preserve-unknown-fields`;
//! - `null` is accepted everywhere: the API server drops nulls of non-nullable fields before
//!   validating, so only `nullable` changes what is stored, not what is accepted;
//! - `x-kubernetes-int-or-string`: an integer or a string;
//! - `x-kubernetes-embedded-resource`: an object with `apiVersion`, `kind` and `metadata`;
//! - `x-kubernetes-validations` stay as they are, for the CEL keyword (see `cel_rules`);
//! - OpenAPI 3.0's boolean `exclusiveMinimum`/`exclusiveMaximum` become JSON Schema's numbers;
//!   `format` and `default` are dropped (Kubernetes' formats are not JSON Schema's).

use serde_json::{json, Map, Value};

/// The JSON Schema of a custom resource whose CRD version has `schema` as its
/// `openAPIV3Schema`. The root accepts `apiVersion`, `kind` and `metadata` whether declared or not.
pub(crate) fn custom_resource_schema(schema: &Value) -> Value {
    let mut root = match translate(schema, Fields::Declared) {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    if let Some(Value::Object(properties)) = root.get_mut("properties") {
        for field in ["apiVersion", "kind"] {
            properties.entry(field).or_insert_with(|| json!({}));
        }
        // A CRD may only narrow `metadata.name`; the rest is ObjectMeta, which the API server checks.
        properties.insert("metadata".into(), json!({}));
    }
    root.insert(
        "$schema".into(),
        json!("https://json-schema.org/draft/2020-12/schema"),
    );
    Value::Object(root)
}

/// Whether undeclared fields are refused where a schema lists `properties`.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fields {
    Declared,
    /// Under `allOf`/`anyOf`/`oneOf`/`not`: value validations that may repeat some of the fields
    /// their parent declares, never all of them, so an undeclared field proves nothing there.
    Open,
}

fn translate(schema: &Value, fields_mode: Fields) -> Value {
    let Value::Object(openapi) = schema else {
        return json!({});
    };
    let flag = |key: &str| openapi.get(key).and_then(Value::as_bool) == Some(true);
    let preserve_unknown = flag("x-kubernetes-preserve-unknown-fields");
    let mut out = Map::new();
    for (key, value) in openapi {
        match key.as_str() {
            "properties" => {
                if let Value::Object(fields) = value {
                    let fields = fields
                        .iter()
                        .map(|(name, field)| (name.clone(), translate(field, fields_mode)));
                    out.insert(key.clone(), Value::Object(fields.collect()));
                }
            }
            // OpenAPI allows a list of schemas for `items`; structural schemas never use it.
            "items" if value.is_object() => {
                out.insert(key.clone(), translate(value, fields_mode));
            }
            "not" if value.is_object() => {
                out.insert(key.clone(), translate(value, Fields::Open));
            }
            "additionalProperties" => {
                let translated = match value {
                    Value::Bool(allowed) => Value::Bool(*allowed),
                    other => translate(other, fields_mode),
                };
                out.insert(key.clone(), translated);
            }
            "allOf" | "anyOf" | "oneOf" => {
                if let Value::Array(schemas) = value {
                    out.insert(
                        key.clone(),
                        Value::Array(schemas.iter().map(|s| translate(s, Fields::Open)).collect()),
                    );
                }
            }
            "type" => {
                if let Value::String(name) = value {
                    if !flag("x-kubernetes-int-or-string") {
                        out.insert(key.clone(), json!([name, "null"]));
                    }
                }
            }
            "enum" => {
                if let Value::Array(values) = value {
                    let mut values = values.clone();
                    values.push(Value::Null);
                    out.insert(key.clone(), Value::Array(values));
                }
            }
            "required"
            | "minimum"
            | "maximum"
            | "minLength"
            | "maxLength"
            | "pattern"
            | "minItems"
            | "maxItems"
            | "uniqueItems"
            | "minProperties"
            | "maxProperties"
            | "multipleOf"
            | "x-kubernetes-validations" => {
                out.insert(key.clone(), value.clone());
            }
            _ => {}
        }
    }
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        if openapi.get(exclusive).and_then(Value::as_bool) == Some(true) {
            if let Some(limit) = out.remove(bound) {
                out.insert(exclusive.into(), limit);
            }
        }
    }
    if flag("x-kubernetes-int-or-string") {
        out.insert(
            "anyOf".into(),
            json!([{"type": ["integer", "null"]}, {"type": ["string", "null"]}]),
        );
    }
    if flag("x-kubernetes-embedded-resource") {
        if let Some(properties) = out
            .entry("properties")
            .or_insert_with(|| json!({}))
            .as_object_mut()
        {
            properties
                .entry("apiVersion")
                .or_insert_with(|| json!({"type": "string"}));
            properties
                .entry("kind")
                .or_insert_with(|| json!({"type": "string"}));
            // Object metadata is checked as such by the API server, whatever the CRD declares.
            properties.insert("metadata".into(), json!({"type": "object"}));
        }
    }
    let declares_fields = out.contains_key("properties");
    if fields_mode == Fields::Declared
        && declares_fields
        && !preserve_unknown
        && !out.contains_key("additionalProperties")
    {
        out.insert("additionalProperties".into(), Value::Bool(false));
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undeclared_fields_are_refused_unless_preserved() {
        let schema = custom_resource_schema(&json!({
            "type": "object",
            "properties": {
                "spec": {"type": "object", "properties": {"replicas": {"type": "integer"}}},
                "extra": {"type": "object", "x-kubernetes-preserve-unknown-fields": true,
                          "properties": {"a": {"type": "string"}}},
            },
        }));
        assert_eq!(schema["additionalProperties"], json!(false));
        assert_eq!(
            schema["properties"]["spec"]["additionalProperties"],
            json!(false)
        );
        assert!(schema["properties"]["extra"]
            .get("additionalProperties")
            .is_none());
        assert_eq!(schema["properties"]["metadata"], json!({}));
    }

    #[test]
    fn value_validations_under_combinators_do_not_close_the_object() {
        let schema = custom_resource_schema(&json!({
            "type": "object",
            "properties": {"spec": {
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "oneOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]},
                          {"properties": {"b": {"type": "string"}}, "required": ["b"]}],
            }},
        }));
        let spec = &schema["properties"]["spec"];
        assert_eq!(spec["additionalProperties"], json!(false));
        assert!(spec["oneOf"][0].get("additionalProperties").is_none());
        assert!(spec["oneOf"][1].get("additionalProperties").is_none());
    }

    #[test]
    fn extensions_become_json_schema() {
        let schema = translate(
            &json!({
            "type": "object",
            "properties": {
                "port": {"x-kubernetes-int-or-string": true},
                "size": {"type": "integer", "minimum": 0, "exclusiveMinimum": true, "format": "int32"},
                "template": {"type": "object", "x-kubernetes-embedded-resource": true,
                             "x-kubernetes-preserve-unknown-fields": true},
            },
            }),
            Fields::Declared,
        );
        let port = &schema["properties"]["port"];
        assert!(port.get("type").is_none());
        assert_eq!(port["anyOf"][0]["type"], json!(["integer", "null"]));
        let size = &schema["properties"]["size"];
        assert_eq!(size["exclusiveMinimum"], json!(0));
        assert!(size.get("minimum").is_none() && size.get("format").is_none());
        let template = &schema["properties"]["template"];
        assert_eq!(template["properties"]["kind"], json!({"type": "string"}));
        assert!(template.get("additionalProperties").is_none());
    }
}
