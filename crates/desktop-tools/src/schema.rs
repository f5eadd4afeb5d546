//! JSON Schemas of tool parameters: as schemars writes them (MCP), and in the strict form
//! the model providers' structured tool calls need (every property required, nullable when
//! optional, no other keys, subschemas inlined, no keywords the providers refuse).

use schemars::generate::SchemaSettings;
use schemars::JsonSchema;
use serde_json::{Map, Value};

/// The object schema of `T`, without the `$schema` and `title` noise.
pub fn plain<T: JsonSchema>() -> Map<String, Value> {
    let mut v = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(Value::Null);
    let mut obj = v.as_object_mut().map(std::mem::take).unwrap_or_default();
    obj.remove("$schema");
    obj.remove("title");
    obj.entry("type")
        .or_insert_with(|| Value::String("object".into()));
    obj.entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    obj
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
