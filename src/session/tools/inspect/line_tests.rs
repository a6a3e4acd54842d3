//! How a frame and a variable read on one line (`push_frame_line`, `variable_line`), and which names
//! are a container's indices (`is_index_name`).

use super::*;
use serde_json::json;

#[test]
fn index_names() {
    assert!(is_index_name("0") && is_index_name("[12]") && is_index_name("0x1f"));
    assert!(!is_index_name("len()") && !is_index_name("x"));
}

#[test]
fn frame_and_variable_lines_read_at_a_glance() {
    let f = json!({"frame": 1004, "function": "total", "path": "/w/app.py", "line": 12});
    assert_eq!(
        {
            let mut s = String::new();
            push_frame_line(&mut s, &f);
            s
        },
        "total at app.py:12 [frame 1004]"
    );
    let v = json!({"name": "items", "value": "[1, 2]", "type": "list", "ref": 1012});
    assert_eq!(variable_line(&v), "items = [1, 2] (list) [ref 1012]");
    let empty = json!({"name": "x", "value": "", "type": "T"});
    assert_eq!(variable_line(&empty), "x = (no value shown by the adapter) (T)");
    let c = json!({"name": "counter", "value": "42", "type": "int", "memoryReference": "0x7FFFFFFFE514"});
    assert_eq!(variable_line(&c), "counter = 42 (int) mem 0x7FFFFFFFE514");
}
