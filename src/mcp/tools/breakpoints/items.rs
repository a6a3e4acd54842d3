//! The items of `set_breakpoints {breakpoints}` by kind: one flat item shape in the schema, read
//! here into the kind's own type, a field of another kind refused by name. Must not: reach a
//! session.

use serde::Deserialize;

use super::{ErrorCode, ToolResult};
use crate::session::breakpoints::{FunctionBreakpoint, InstructionBreakpoint, SourceBreakpoint};
use crate::session::tools::breakpoints::data::{DataItem, Watched, MAX_ITEMS};

/// The breakpoint kinds of `set_breakpoints {kind}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Source,
    Function,
    Data,
    Instruction,
}

impl Kind {
    pub fn parse(s: Option<&str>) -> Result<Kind, ToolResult> {
        match s {
            None | Some("source") => Ok(Kind::Source),
            Some("function") => Ok(Kind::Function),
            Some("data") => Ok(Kind::Data),
            Some("instruction") => Ok(Kind::Instruction),
            Some(other) => Err(bad(format!("kind `{other}` is not one of source, function, data, instruction."))),
        }
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Source => "source",
            Kind::Function => "function",
            Kind::Data => "data",
            Kind::Instruction => "instruction",
        }
    }

    /// The item fields this kind takes.
    fn fields(self) -> &'static [&'static str] {
        match self {
            Kind::Source => &["line", "column", "condition", "hit_condition", "log_message"],
            Kind::Function => &["name", "condition", "hit_condition"],
            Kind::Data => &["ref", "name", "expression", "bytes", "access", "condition", "hit_condition"],
            Kind::Instruction => &["address", "offset", "condition", "hit_condition"],
        }
    }
}

/// One item as the schema lists it: every kind's fields (DAP's camelCase spellings accepted
/// for those `SourceBreakpoint` took before).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Item {
    line: Option<u32>,
    column: Option<u32>,
    condition: Option<String>,
    #[serde(alias = "hitCondition")]
    hit_condition: Option<String>,
    #[serde(alias = "logMessage")]
    log_message: Option<String>,
    name: Option<String>,
    #[serde(rename = "ref")]
    reference: Option<i64>,
    expression: Option<String>,
    bytes: Option<u64>,
    access: Option<String>,
    address: Option<String>,
    offset: Option<i64>,
}

impl Item {
    /// The fields given, by their schema names.
    fn given(&self) -> Vec<&'static str> {
        let all = [
            ("line", self.line.is_some()),
            ("column", self.column.is_some()),
            ("condition", self.condition.is_some()),
            ("hit_condition", self.hit_condition.is_some()),
            ("log_message", self.log_message.is_some()),
            ("name", self.name.is_some()),
            ("ref", self.reference.is_some()),
            ("expression", self.expression.is_some()),
            ("bytes", self.bytes.is_some()),
            ("access", self.access.is_some()),
            ("address", self.address.is_some()),
            ("offset", self.offset.is_some()),
        ];
        all.into_iter().filter(|(_, on)| *on).map(|(n, _)| n).collect()
    }
}

fn bad(msg: String) -> ToolResult {
    ToolResult::error(ErrorCode::InvalidArgument, msg)
}

/// Refuses a field of another kind, naming it, the item and what the kind takes.
fn check_fields(kind: Kind, items: &[Item]) -> Result<(), ToolResult> {
    for (i, item) in items.iter().enumerate() {
        if let Some(f) = item.given().into_iter().find(|f| !kind.fields().contains(f)) {
            return Err(bad(format!(
                "breakpoints[{i}]: `{f}` is not a field of kind {} (it takes {}).",
                kind.name(),
                kind.fields().join(", ")
            )));
        }
    }
    Ok(())
}

fn need<T>(value: Option<T>, i: usize, field: &str, kind: Kind) -> Result<T, ToolResult> {
    value.ok_or_else(|| bad(format!("breakpoints[{i}]: kind {} needs `{field}`.", kind.name())))
}

pub fn source(items: Vec<Item>) -> Result<Vec<SourceBreakpoint>, ToolResult> {
    check_fields(Kind::Source, &items)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        let line = need(it.line, i, "line", Kind::Source)?;
        let Item { column, condition, hit_condition, log_message, .. } = it;
        out.push(SourceBreakpoint { line, column, condition, hit_condition, log_message });
    }
    Ok(out)
}

/// Most function breakpoints in one list.
const MAX_FUNCTIONS: usize = 256;

pub fn function(items: Vec<Item>) -> Result<Vec<FunctionBreakpoint>, ToolResult> {
    check_fields(Kind::Function, &items)?;
    if items.len() > MAX_FUNCTIONS {
        return Err(bad(format!("at most {MAX_FUNCTIONS} function breakpoints at once.")));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        let name = need(it.name, i, "name", Kind::Function)?;
        if name.trim().is_empty() {
            return Err(bad("a function breakpoint has an empty name.".into()));
        }
        out.push(FunctionBreakpoint { name, condition: it.condition, hit_condition: it.hit_condition });
    }
    Ok(out)
}

fn at_most(kind: Kind, n: usize) -> Result<(), ToolResult> {
    if n > MAX_ITEMS {
        return Err(bad(format!("at most {MAX_ITEMS} {} breakpoints at once.", kind.name())));
    }
    Ok(())
}

pub fn data(items: Vec<Item>) -> Result<Vec<DataItem>, ToolResult> {
    check_fields(Kind::Data, &items)?;
    at_most(Kind::Data, items.len())?;
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        let watched = match (it.reference, it.name, it.expression) {
            (Some(handle), Some(name), None) if !name.is_empty() => Watched::Child { handle, name },
            (None, None, Some(expression)) if !expression.trim().is_empty() => {
                if it.bytes == Some(0) {
                    return Err(bad(format!("breakpoints[{i}]: bytes must be at least 1.")));
                }
                Watched::Expression { expression, bytes: it.bytes }
            }
            _ => {
                return Err(bad(format!(
                    "breakpoints[{i}]: a data breakpoint watches either a variable, {{ref, name}} (the container's ref from variables or scopes, the child's name), or {{expression}} (with bytes: an address expression)."
                )))
            }
        };
        if it.bytes.is_some() && !matches!(watched, Watched::Expression { .. }) {
            return Err(bad(format!("breakpoints[{i}]: bytes goes with an address expression.")));
        }
        if let Some(a) = it.access.as_deref().filter(|a| !["read", "write", "readWrite"].contains(a)) {
            return Err(bad(format!("breakpoints[{i}]: access `{a}` is not one of read, write, readWrite.")));
        }
        out.push(DataItem { watched, access: it.access, condition: it.condition, hit_condition: it.hit_condition });
    }
    Ok(out)
}

pub fn instruction(items: Vec<Item>) -> Result<Vec<InstructionBreakpoint>, ToolResult> {
    check_fields(Kind::Instruction, &items)?;
    at_most(Kind::Instruction, items.len())?;
    let mut out = Vec::with_capacity(items.len());
    for (i, it) in items.into_iter().enumerate() {
        let address = need(it.address, i, "address", Kind::Instruction)?;
        if address.trim().is_empty() {
            return Err(bad(format!(
                "breakpoints[{i}]: address is empty; give a memory reference (a frame's address in stack_trace)."
            )));
        }
        out.push(InstructionBreakpoint {
            address: address.trim().to_owned(),
            offset: it.offset,
            condition: it.condition,
            hit_condition: it.hit_condition,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn items(v: serde_json::Value) -> Vec<Item> {
        serde_json::from_value(v).unwrap_or_default()
    }

    #[test]
    fn a_field_of_another_kind_is_refused_by_name() {
        let e = source(items(json!([{"line": 3}, {"name": "f"}]))).unwrap_err();
        assert_eq!(
            e.text,
            "invalid_argument: breakpoints[1]: `name` is not a field of kind source (it takes line, column, condition, hit_condition, log_message)."
        );
        let e = function(items(json!([{"condition": "x"}]))).unwrap_err();
        assert_eq!(e.text, "invalid_argument: breakpoints[0]: kind function needs `name`.");
        let e = data(items(json!([{"ref": 3}]))).unwrap_err();
        assert!(e.text.contains("either a variable, {ref, name}"), "{}", e.text);
        let e = data(items(json!([{"ref": 3, "name": "a", "bytes": 4}]))).unwrap_err();
        assert_eq!(e.text, "invalid_argument: breakpoints[0]: bytes goes with an address expression.");
        let e = data(items(json!([{"expression": "&g", "access": "exec"}]))).unwrap_err();
        assert_eq!(e.text, "invalid_argument: breakpoints[0]: access `exec` is not one of read, write, readWrite.");
        assert_eq!(
            Kind::parse(Some("watch")).unwrap_err().text,
            "invalid_argument: kind `watch` is not one of source, function, data, instruction."
        );
    }

    #[test]
    fn items_read_into_their_kinds() {
        let d = data(items(json!([{"ref": 3, "name": "a", "access": "readWrite"}, {"expression": "&g", "bytes": 4}])));
        let d = d.unwrap_or_default();
        assert_eq!(d[0].watched, Watched::Child { handle: 3, name: "a".into() });
        assert_eq!(d[1].watched, Watched::Expression { expression: "&g".into(), bytes: Some(4) });
        let i =
            instruction(items(json!([{"address": " 0x10 ", "offset": -2, "hit_condition": "3"}]))).unwrap_or_default();
        assert_eq!((i[0].address.as_str(), i[0].offset, i[0].hit_condition.as_deref()), ("0x10", Some(-2), Some("3")));
        let s = source(items(json!([{"line": 2, "hitCondition": "2", "logMessage": "m"}]))).unwrap_or_default();
        assert_eq!((s[0].hit_condition.as_deref(), s[0].log_message.as_deref()), (Some("2"), Some("m")));
    }
}
