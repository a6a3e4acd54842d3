//! Integration tests on the native adapters (lldb-dap, Delve) through the built binary and their
//! recipes, one test binary for all of them: sessions, truthfulness, control tools, attach by pid,
//! process hygiene.

#[path = "../agent/mod.rs"]
mod agent;
#[path = "../common/mod.rs"]
mod common;
#[path = "../spawn_util/mod.rs"]
mod spawn_util;

mod attach_pid;
mod breakpoint_kinds;
mod breakpoint_truth;
mod codelldb;
mod core_dump;
mod ctl_native;
mod delve;
mod delve_truth;
mod gdb;
mod go_test_run;
mod inspect_more;
mod launch_json_go;
mod launch_json_native;
mod life_lldb;
mod lldb;
mod lldb_truth;
mod memory;
mod native_adapters;
mod native_hygiene;
mod native_util;
mod rust_test_run;
mod stacks_lldb;
mod stop_frame_delve;
mod stop_frame_lldb;
