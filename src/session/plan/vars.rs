//! VS Code's variables in a launch configuration's strings (`${workspaceFolder}`, `${env:NAME}`,
//! `${file}`, …; code.visualstudio.com/docs/reference/variables-reference lists them), replaced
//! from what agentdap knows without an editor, and refused, by name, where only an editor would
//! know (`${input:…}`, `${command:…}`, `${lineNumber}`, an unknown name). Pure: the facts come in
//! a [`Facts`]; must not read the environment or files itself.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// What the variables are replaced from.
pub struct Facts<'a> {
    /// The folder holding `.vscode` (`${workspaceFolder}`), absolute.
    pub workspace: &'a Path,
    /// agentdap's working directory (`${cwd}`).
    pub cwd: Option<PathBuf>,
    /// An environment variable of agentdap (`${env:NAME}`, `${userHome}` from `HOME`).
    pub env: &'a dyn Fn(&str) -> Option<String>,
    /// The call's `program`, absolute: what "the current file" (`${file}` …) means here.
    pub file: Option<&'a Path>,
}

/// A variable that cannot be replaced: its text as written (`${input:port}`) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unresolved {
    pub variable: String,
    pub why: &'static str,
}

const NO_FILE: &str = "means the editor's current file: pass the call's `program` to stand for it";
const EDITOR: &str = "is the editor's state, which agentdap does not have; replace it in launch.json";
const INPUT: &str = "asks the user through VS Code's `inputs`; replace it in launch.json";
const COMMAND: &str = "runs a VS Code command, which agentdap cannot; replace it in launch.json";
const PICK_PROCESS: &str = "is VS Code's process picker; call `attach {pid}` with the process instead";
const CONFIG: &str = "reads a VS Code setting, which agentdap does not have; replace it in launch.json";
const OTHER_FOLDER: &str =
    "names another folder of a multi-root workspace; agentdap knows only the one holding .vscode";
const UNKNOWN: &str = "is not a variable agentdap knows";

/// `text` with every `${…}` replaced, or the first one that cannot be. A `$` not followed by
/// `{`, or a `${` never closed, is kept as written (as VS Code does).
pub fn substitute(text: &str, facts: &Facts<'_>) -> Result<String, Unresolved> {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return Ok(out);
        };
        let name = &after[..end];
        let variable = format!("${{{name}}}");
        out.push_str(&value_of(name, facts).map_err(|why| Unresolved { variable, why })?);
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}

/// Replaces the variables in every string of `value` (keys stay as written). `Err` names the
/// place (`env.HOME`, `args[1]`) and the variable.
pub fn substitute_all(value: &mut Value, facts: &Facts<'_>, at: &str) -> Result<(), (String, Unresolved)> {
    match value {
        Value::String(s) => {
            *s = substitute(s, facts).map_err(|u| (at.to_owned(), u))?;
        }
        Value::Array(items) => {
            for (i, item) in items.iter_mut().enumerate() {
                substitute_all(item, facts, &format!("{at}[{i}]"))?;
            }
        }
        Value::Object(map) => {
            for (key, item) in map.iter_mut() {
                let place = if at.is_empty() { key.clone() } else { format!("{at}.{key}") };
                substitute_all(item, facts, &place)?;
            }
        }
        _ => {}
    }
    Ok(())
}

fn value_of(name: &str, facts: &Facts<'_>) -> Result<String, &'static str> {
    let text = |p: &Path| p.to_string_lossy().into_owned();
    let basename = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(var) = name.strip_prefix("env:") {
        // VS Code gives an unset variable as the empty string.
        return Ok((facts.env)(var).unwrap_or_default());
    }
    if let Some(folder) = name.strip_prefix("workspaceFolder:") {
        return if folder == basename(facts.workspace) { Ok(text(facts.workspace)) } else { Err(OTHER_FOLDER) };
    }
    if name == "command:pickProcess" || name == "command:PickProcess" {
        return Err(PICK_PROCESS);
    }
    for (prefix, why) in [("input:", INPUT), ("command:", COMMAND), ("config:", CONFIG)] {
        if name.starts_with(prefix) {
            return Err(why);
        }
    }
    match name {
        "workspaceFolder" | "workspaceRoot" => return Ok(text(facts.workspace)),
        "workspaceFolderBasename" => return Ok(basename(facts.workspace)),
        "userHome" => return (facts.env)("HOME").ok_or("needs $HOME, which is not set"),
        "cwd" => {
            return facts.cwd.as_deref().map(text).ok_or("needs agentdap's working directory, which is unreadable")
        }
        "pathSeparator" | "/" => return Ok("/".into()),
        "lineNumber" | "columnNumber" | "selectedText" | "execPath" | "defaultBuildTask" => return Err(EDITOR),
        _ => {}
    }
    let file_var = matches!(
        name,
        "file"
            | "fileBasename"
            | "fileBasenameNoExtension"
            | "fileExtname"
            | "fileDirname"
            | "fileDirnameBasename"
            | "relativeFile"
            | "relativeFileDirname"
            | "fileWorkspaceFolder"
    );
    if !file_var {
        return Err(UNKNOWN);
    }
    let file = facts.file.ok_or(NO_FILE)?;
    let dir = file.parent().unwrap_or(Path::new("/"));
    let relative = |p: &Path| p.strip_prefix(facts.workspace).map(text).unwrap_or_else(|_| text(p));
    Ok(match name {
        "file" => text(file),
        "fileBasename" => basename(file),
        "fileBasenameNoExtension" => file.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default(),
        "fileExtname" => file.extension().map(|e| format!(".{}", e.to_string_lossy())).unwrap_or_default(),
        "fileDirname" => text(dir),
        "fileDirnameBasename" => basename(dir),
        "relativeFile" => relative(file),
        "relativeFileDirname" => relative(dir),
        _ => text(facts.workspace),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn env(name: &str) -> Option<String> {
        match name {
            "HOME" => Some("/home/u".into()),
            "TOKEN" => Some("t0".into()),
            _ => None,
        }
    }

    fn check(text: &str, file: Option<&str>, expected: Result<&str, (&str, &'static str)>) {
        let facts =
            Facts { workspace: Path::new("/w/proj"), cwd: Some("/start".into()), env: &env, file: file.map(Path::new) };
        let got = substitute(text, &facts);
        match expected {
            Ok(want) => assert_eq!(got, Ok(want.to_owned()), "{text}"),
            Err((variable, why)) => {
                assert_eq!(got, Err(Unresolved { variable: variable.into(), why }), "{text}")
            }
        }
    }

    #[test]
    fn workspace_home_env_cwd_and_separators() {
        check("${workspaceFolder}/app.py", None, Ok("/w/proj/app.py"));
        check("${workspaceRoot}", None, Ok("/w/proj"));
        check("${workspaceFolderBasename}", None, Ok("proj"));
        check("${workspaceFolder:proj}/x", None, Ok("/w/proj/x"));
        check("${userHome}/.cfg", None, Ok("/home/u/.cfg"));
        check("k=${env:TOKEN};u=${env:UNSET}.", None, Ok("k=t0;u=."));
        check("${cwd}", None, Ok("/start"));
        check("a${pathSeparator}b${/}c", None, Ok("a/b/c"));
        check("cost $5, ${ open", None, Ok("cost $5, ${ open"));
    }

    #[test]
    fn file_variables_come_from_the_calls_program() {
        let f = Some("/w/proj/src/app.test.py");
        check("${file}", f, Ok("/w/proj/src/app.test.py"));
        check("${fileBasename}", f, Ok("app.test.py"));
        check("${fileBasenameNoExtension}", f, Ok("app.test"));
        check("${fileExtname}", f, Ok(".py"));
        check("${fileDirname}", f, Ok("/w/proj/src"));
        check("${fileDirnameBasename}", f, Ok("src"));
        check("${relativeFile}", f, Ok("src/app.test.py"));
        check("${relativeFileDirname}", f, Ok("src"));
        check("${fileWorkspaceFolder}", f, Ok("/w/proj"));
        check("${file}", None, Err(("${file}", NO_FILE)));
        check("${relativeFileDirname}", None, Err(("${relativeFileDirname}", NO_FILE)));
    }

    #[test]
    fn what_only_an_editor_knows_is_refused_by_name() {
        check("${input:port}", None, Err(("${input:port}", INPUT)));
        check("${command:pickProcess}", None, Err(("${command:pickProcess}", PICK_PROCESS)));
        check("${command:python.interpreterPath}", None, Err(("${command:python.interpreterPath}", COMMAND)));
        check(
            "${config:python.defaultInterpreterPath}",
            None,
            Err(("${config:python.defaultInterpreterPath}", CONFIG)),
        );
        check("${lineNumber}", None, Err(("${lineNumber}", EDITOR)));
        check("${selectedText}", None, Err(("${selectedText}", EDITOR)));
        check("${workspaceFolder:other}", None, Err(("${workspaceFolder:other}", OTHER_FOLDER)));
        check("${nope}", None, Err(("${nope}", UNKNOWN)));
    }

    #[test]
    fn every_string_of_a_value_is_replaced_and_a_failure_names_its_place() {
        let facts = Facts { workspace: Path::new("/w/p"), cwd: None, env: &env, file: None };
        let mut v = json!({"program": "${workspaceFolder}/a", "args": ["x", "${env:TOKEN}"], "env": {"${k}": 1}});
        assert_eq!(substitute_all(&mut v, &facts, ""), Ok(()));
        assert_eq!(v, json!({"program": "/w/p/a", "args": ["x", "t0"], "env": {"${k}": 1}}));
        let mut bad = json!({"args": ["a", "${input:x}"]});
        let (at, u) = substitute_all(&mut bad, &facts, "").unwrap_err();
        assert_eq!((at.as_str(), u.variable.as_str()), ("args[1]", "${input:x}"));
    }
}
