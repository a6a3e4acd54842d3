//! An adapter's own frames cut from the Python traceback an `evaluate` error quotes: debugpy
//! 1.8.22 answers a syntax error with the traceback of its own evaluator (six frames inside
//! pydevd) above the two lines that matter (a fresh user's finding: "a 30-line pydevd
//! traceback"). Which paths are the adapter's own is data (`RuntimeQuirks::evaluate_own_frames`).
//! Pure.

/// `text` without the traceback entries (`  File "…"` and its indented code lines) whose path
/// holds one of `own`, and one line in their place saying how many were left out; `text` as it
/// is when none is.
pub fn without_own_frames(text: &str, own: &[&str], adapter: &str) -> String {
    if own.is_empty() || !text.contains("Traceback (most recent call last):") {
        return text.to_owned();
    }
    let mut out: Vec<&str> = Vec::new();
    let mut cut = 0usize;
    let mut skipping = false;
    let mut note_at = None;
    for line in text.lines() {
        if let Some(path) = line.strip_prefix("  File \"").and_then(|rest| rest.split('"').next()) {
            skipping = own.iter().any(|o| path.contains(o));
            if skipping {
                cut += 1;
                note_at.get_or_insert(out.len());
                continue;
            }
        } else if skipping && line.starts_with("    ") {
            continue;
        } else {
            skipping = false;
        }
        out.push(line);
    }
    if cut == 0 {
        return text.to_owned();
    }
    let note = format!("  ({cut} frame{} of {adapter}'s own evaluator left out)", if cut == 1 { "" } else { "s" });
    let mut lines: Vec<String> = out.iter().map(|l| (*l).to_owned()).collect();
    lines.insert(note_at.unwrap_or(0).min(lines.len()), note);
    let mut joined = lines.join("\n");
    if text.ends_with('\n') {
        joined.push('\n');
    }
    joined
}

#[cfg(test)]
mod tests {
    use super::without_own_frames;

    const OWN: &[&str] = &["/_pydevd_bundle/"];

    #[test]
    fn the_evaluators_own_frames_are_cut_and_counted_and_the_error_kept() {
        let text = "`evaluate` failed: Traceback (most recent call last):\n  File \"/v/debugpy/_vendored/pydevd/_pydevd_bundle/pydevd_comm.py\", line 1258, in internal_evaluate_expression_json\n    exec_result = pydevd_vars.evaluate_expression(py_db, frame, expression, is_exec=True)\n                  ^^^^^^^^^^\n  File \"/v/debugpy/_vendored/pydevd/_pydevd_bundle/pydevd_vars.py\", line 449, in _compile_as_exec\n    return compile(expression_to_evaluate, \"<string>\", \"exec\", _ASYNC_COMPILE_FLAGS)\n  File \"<string>\", line 1\n    acc +\n         ^\nSyntaxError: invalid syntax\n";
        let want = "`evaluate` failed: Traceback (most recent call last):\n  (2 frames of debugpy's own evaluator left out)\n  File \"<string>\", line 1\n    acc +\n         ^\nSyntaxError: invalid syntax\n";
        assert_eq!(without_own_frames(text, OWN, "debugpy"), want);
    }

    #[test]
    fn a_traceback_of_the_programs_own_code_is_kept_whole() {
        let text = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n  File \"/src/app.py\", line 3, in f\n    return 1 / 0\nZeroDivisionError: division by zero";
        assert_eq!(without_own_frames(text, OWN, "debugpy"), text);
        assert_eq!(without_own_frames("name 'x' is not defined", OWN, "debugpy"), "name 'x' is not defined");
        assert_eq!(without_own_frames(text, &[], "debugpy"), text);
    }
}
