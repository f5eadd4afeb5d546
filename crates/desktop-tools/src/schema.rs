//! JSON Schemas of tool parameters: as schemars writes them (MCP), and in the strict form
//! the model providers' structured tool calls need (every property required, nullable when
//! optional, no other keys, subschemas inlined, no keywords the providers refuse).

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The object schema of `T` as an MCP host shows it to a model, lean: no `$schema`,
/// `title` or top-level description (the tool's own says it), no number `format`s or
/// `minimum: 0` of unsigned numbers (the server refuses a negative one with INVALID_ARGS
/// all the same), optional properties typed plainly (absence says they are optional; null
/// is taken too), and no defaults that say nothing (false, empty).
pub fn plain<T: JsonSchema>() -> Map<String, Value> {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    lean(&mut v);
    let mut obj = v.as_object_mut().map(std::mem::take).unwrap_or_default();
    for k in ["$schema", "title", "description"] {
        obj.remove(k);
    }
    obj.entry("type")
        .or_insert_with(|| Value::String("object".into()));
    obj.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    obj
}

/// The keywords of a schema object whose values are maps of named subschemas: their keys
/// are names (a property may be called `format` or `title`), not keywords.
const NAMED: &[&str] = &["properties", "$defs", "definitions", "patternProperties"];

/// Calls `f` on every subschema one level below `obj`, telling it whether it is a named one
/// (a property or a definition) or part of this schema (`items`, `anyOf`, ...).
fn children(obj: &mut Map<String, Value>, f: &mut impl FnMut(&mut Value, bool)) {
    for (k, v) in obj.iter_mut() {
        if NAMED.contains(&k.as_str()) {
            if let Value::Object(named) = v {
                named.values_mut().for_each(|x| f(x, true));
            }
        } else if let Value::Array(items) = v {
            items.iter_mut().for_each(|x| f(x, false));
        } else if v.is_object() {
            f(v, false);
        }
    }
}

/// Removes what tells a model nothing, recursively.
fn lean(v: &mut Value) {
    let Value::Object(obj) = v else { return };
    if obj.get("type").and_then(Value::as_str) != Some("string") {
        obj.remove("format");
    }
    if obj.get("minimum").and_then(Value::as_u64) == Some(0) {
        obj.remove("minimum");
    }
    if matches!(obj.get("default"), Some(Value::Bool(false) | Value::Null))
        || obj
            .get("default")
            .and_then(Value::as_array)
            .is_some_and(Vec::is_empty)
    {
        obj.remove("default");
    }
    // ["integer", "null"] → "integer".
    if let Some(Value::Array(types)) = obj.get("type") {
        let kept: Vec<&Value> = types
            .iter()
            .filter(|t| t.as_str() != Some("null"))
            .collect();
        if kept.len() == 1 && types.len() == 2 {
            let one = kept[0].clone();
            obj.insert("type".into(), one);
        }
    }
    children(obj, &mut |x, _| lean(x));
}

/// An output schema as terse as keeps it a schema: the top level's properties with their
/// types (enums kept; what nests inside them left open), required keys; no prose
/// (`desktop-cli schema` has it).
pub fn terse(v: &mut Value) {
    strip(v, 0);
}

/// `depth`: how many named subschemas (properties, definitions) deep this one is; below
/// the top level only the kind of value is kept.
fn strip(v: &mut Value, depth: usize) {
    let Value::Object(obj) = v else { return };
    for k in [
        "description",
        "examples",
        "minItems",
        "maxItems",
        "title",
        "$schema",
    ] {
        obj.remove(k);
    }
    if depth >= 1 {
        obj.remove("properties");
        obj.remove("required");
        obj.remove("additionalProperties");
        if obj.get("type").and_then(Value::as_str) == Some("array") {
            obj.remove("items");
        }
    }
    children(obj, &mut |x, named| strip(x, depth + usize::from(named)));
}

/// The strict schema of `T`: what OpenAI's strict function calling accepts and Anthropic's
/// tools take alike. Optional properties become nullable and required.
pub fn strict<T: JsonSchema>() -> Value {
    let settings = SchemaSettings::draft2020_12().with(|s| s.inline_subschemas = true);
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut v = serde_json::to_value(schema).unwrap_or(Value::Null);
    if let Some(obj) = v.as_object_mut() {
        obj.remove("$schema");
        obj.remove("title");
    }
    tighten(&mut v);
    v
}

/// Makes every object in `v` strict, recursively.
fn tighten(v: &mut Value) {
    let Some(obj) = v.as_object_mut() else {
        if let Some(items) = v.as_array_mut() {
            items.iter_mut().for_each(tighten);
        }
        return;
    };
    // Keywords strict mode refuses or ignores: formats of numbers, defaults, examples.
    for k in ["format", "default", "examples", "title"] {
        if obj.get("type").and_then(Value::as_str) != Some("string") || k != "format" {
            obj.remove(k);
        }
    }
    let required: Vec<String> = obj
        .get("required")
        .and_then(Value::as_array)
        .map(|r| {
            r.iter()
                .filter_map(|s| s.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    if let Some(Value::Object(props)) = obj.get_mut("properties") {
        let mut names = Vec::new();
        for (name, p) in props.iter_mut() {
            tighten(p);
            if !required.contains(name) {
                nullable(p);
            }
            names.push(Value::String(name.clone()));
        }
        obj.insert("required".into(), Value::Array(names));
        obj.insert("additionalProperties".into(), Value::Bool(false));
    }
    for k in ["items", "anyOf", "oneOf"] {
        if let Some(sub) = obj.get_mut(k) {
            tighten(sub);
        }
    }
}

/// Lets `p` also be null, unless it already may be.
fn nullable(p: &mut Value) {
    let Some(obj) = p.as_object_mut() else {
        return;
    };
    let null = Value::String("null".into());
    match obj.get_mut("type") {
        Some(Value::Array(types)) => {
            if !types.contains(&null) {
                types.push(null.clone());
            }
        }
        Some(t @ Value::String(_)) => {
            let one = t.take();
            *t = Value::Array(vec![one, null.clone()]);
        }
        _ => {
            if let Some(Value::Array(any)) = obj.get_mut("anyOf") {
                if !any.iter().any(|s| s.get("type") == Some(&null)) {
                    any.push(serde_json::json!({"type": "null"}));
                }
            } else {
                let inner = Value::Object(std::mem::take(obj));
                obj.insert(
                    "anyOf".into(),
                    Value::Array(vec![inner, serde_json::json!({"type": "null"})]),
                );
            }
            return;
        }
    }
    if let Some(Value::Array(options)) = obj.get_mut("enum") {
        if !options.contains(&Value::Null) {
            options.push(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Keywords go, properties of the same names stay.
    #[test]
    fn names_are_not_keywords() {
        let mut v = json!({"type": "object", "title": "x", "description": "d",
        "properties": {
            "format": {"type": ["string", "null"], "description": "png or jpeg"},
            "title": {"type": "string"},
            "n": {"type": ["integer", "null"], "format": "uint32", "default": false},
            "inner": {"type": "object", "properties": {"a": {"type": "string"}}}
        }});
        lean(&mut v);
        assert_eq!(v["properties"]["format"]["type"], "string");
        assert_eq!(v["properties"]["n"], json!({"type": "integer"}));
        assert!(v["properties"]["title"].is_object());
        terse(&mut v);
        let p = &v["properties"];
        assert!(p["format"].is_object() && p["title"].is_object(), "{v}");
        assert!(p["format"].get("description").is_none());
        assert_eq!(p["inner"], json!({"type": "object"}));
        assert!(v.get("title").is_none() && v.get("description").is_none());
    }
}
