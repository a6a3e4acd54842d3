//! Integration tests on real debugpy through the built binary, one test binary (one link) for all
//! of them: sessions, attach, child sessions, process hygiene, pause, values, `run_to` and the other
//! control tools, the fast path, project venvs, inspection and output.

#[path = "../agent/mod.rs"]
mod agent;
#[path = "../common/mod.rs"]
mod common;

mod allow_inspect;
mod breakpoint_kinds_debugpy;
mod ctl_debugpy;
mod debugpy;
mod debugpy_attach;
mod debugpy_children;
mod debugpy_hygiene;
mod debugpy_pause;
mod debugpy_truth;
mod debugpy_values;
mod fastpath;
mod inspect;
mod inspect_more;
mod launch_json;
mod life_debugpy;
mod memory;
mod output;
mod project_python;
mod stacks_debugpy;
mod stop_frame_debugpy;
mod test_runs;
