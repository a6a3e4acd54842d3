//! Integration tests on Ruby's debug gem (rdbg) through the built binary, one test binary for
//! all of them: a `.rb` program stopped in a method (locals, `evaluate`, steps in and out), its
//! output per stream and its exit code, stop on entry, attach to an `rdbg --open` the test
//! started and detach, and no `ruby` process left after any test or after SIGKILL of agentdap.
//!
//! rdbg is Ruby's bundled debug gem (`apt-get install ruby`; `scripts/install-test-deps`
//! installs it); `$AGENTDAP_RDBG` overrides it. When no `ruby` is found the tests fail and say
//! how to install it.

#[path = "../agent/mod.rs"]
mod agent;
#[path = "../common/mod.rs"]
mod common;

mod ruby_attach;
mod ruby_launch;
mod ruby_util;
