//! Sans-IO tests of the adapter quirks the recipes set (`src/dap/adapters/{debugpy,lldb,delve,jsdebug,codelldb,rdbg}.rs`),
//! each against the scripted adapter of [`crate::dap::scripted`] through
//! [`super::scripted::Rig`], asserting the behaviour the quirk exists for; quirks another test
//! already pins are only listed here, with that test. Every field of `Quirks` and
//! `RuntimeQuirks` that a recipe sets differently from `STANDARD`:
//!
//! | quirk (recipes) | pinned by |
//! |---|---|
//! | `Quirks::initialized_after_launch` (all three) | `choreography_tests::a_launch_answered_only_after_configuration_done_is_joined_and_the_stop_reported`; `tests/debugpy.rs` `startup_wire_order_and_a_breakpoint_on_a_missing_file_refused_before_launch`; `dap::client::tests::c06_debugpy_initialized_after_launch_and_launch_answered_after_configuration_done` |
//! | `Quirks::launch_response_after_configuration_done` (debugpy, lldb) | `choreography_tests::a_launch_answered_only_after_configuration_done_is_joined_and_the_stop_reported`, `choreography_tests::an_entry_stop_before_the_configuration_done_and_launch_responses_answers_the_launch`; `tests/fake_adapter.rs` `c11_a_launch_error_after_configuration_done_ends_the_wait_at_once` |
//! | `Quirks::exception_filters` (debugpy) | [`all_means_raised_and_a_filter_debugpy_lacks_is_named_not_sent`]; `tests/debugpy.rs` `relative_paths_unknown_filters_unknown_threads_and_ended_by_agentdap_are_explicit` |
//! | `Quirks::exception_filter_aliases` (debugpy; rdbg: `capability_tests::rdbgs_filter_aliases_map_all_and_raised_to_any`) | [`all_means_raised_and_a_filter_debugpy_lacks_is_named_not_sent`]; `dap::adapters::tests::maps_exception_filter_aliases` |
//! | `Quirks::default_filters_off_until_sent` (debugpy) | `choreography_tests::start_up_requests_go_out_in_the_spec_order_with_their_exact_arguments` (the defaults sent when none are asked); `tests/debugpy.rs` `startup_wire_order_and_a_breakpoint_on_a_missing_file_refused_before_launch` |
//! | `Quirks::exit_stops_as_exception` (debugpy) | `session::snapshot` `exception_text_from_info_or_event_and_system_exit_codes`; `tests/debugpy.rs` `breakpoints_hit_then_system_exit_then_exit_code_and_every_line_in_order` |
//! | `Quirks::variable_paging` (debugpy, lldb) | `tests/inspect.rs` `variables_page_a_big_list_threads_and_stale_handles_are_refused_before_sending` (agentdap pages from one fetch, whatever the adapter) |
//! | `Quirks::moves_unbindable_breakpoints` (debugpy, lldb) | `choreography_tests::breakpoints_given_to_launch_are_set_before_configuration_done_and_reported_as_answered`; `session::breakpoints` `response_marks_moved_and_unverified_then_events_update`; `tests/debugpy.rs` `stop_on_entry_by_default_then_moved_and_unverified_breakpoints` |
//! | `Quirks::child_sessions` (debugpy) | `session::tests::start_debugging_opens_a_child_or_declines_a_remote_address`; `tests/debugpy_children.rs` |
//! | `Quirks::terminate_debuggee_capability` (debugpy) | `dap::protocol::tests::capabilities_typed_subset_and_raw` (both spellings read); `tests/spawn_debugpy.rs` `real_debugpy_answers_initialize_and_dies_with_its_group` |
//! | `Quirks::dropped_events` (debugpy) | [`debugpy_sockets_events_and_telemetry_reach_no_result`] |
//! | `Quirks::console_banner` (lldb, delve) | `tests/lldb_truth.rs` `lldb_launch_output_is_the_programs_not_the_executable_binary_set_line` |
//! | `Quirks::pause_signal` (lldb) | `session::tests::adapter_words_in_names_and_stop_notes_hide_nothing`; `tests/lldb.rs` `a_pause_reads_as_a_pause_not_a_signal` |
//! | `Quirks::attach_pid_key` (lldb) | `attach_tests::a_refused_attach_by_pid_says_what_the_kernel_shows_of_the_process` (`session::plan` puts the pid under the key) |
//! | `Quirks::attach_helper_failure` (debugpy) | `attach_tests::debugpys_failed_injection_ends_the_attach_at_once_in_gdbs_and_debugpys_words`; `dap::adapters::attach` tests; `tests/debugpy` `debugpy_attach::attach_by_pid_or_a_clear_ptrace_error` |
//! | `Quirks::variables_are_snapshots` (delve) | [`a_delve_call_expression_makes_older_variable_handles_stale`]; `tests/delve_truth.rs` `go_set_variable_reads_back_ints_strings_and_struct_fields_and_never_shows_old_values` |
//! | `Quirks::mutating_evaluate_prefixes` (delve) | [`a_delve_call_expression_makes_older_variable_handles_stale`] |
//! | `Quirks::unnamed_child_from_evaluate_name` (delve) | `tests/delve_truth.rs` `go_pointer_target_is_listed_as_star_name_and_can_be_set_under_it` |
//! | `Quirks::launch_output_apart_from_stops` (debugpy) | `tests/output.rs` `a_stop_result_says_when_output_may_still_be_arriving` |
//! | `Quirks::set_expression_shadows_nonlocals` (debugpy) | `tests/ctl_debugpy.rs` `set_expression_changes_what_the_program_reads_for_globals_cells_locals_and_attributes` |
//! | `Quirks::logpoint_output_key` (debugpy, delve) | `tests/output.rs` `log_point_messages_are_labelled_apart_from_the_programs_prints`; `tests/native` `breakpoint_truth::delve_log_point_messages_are_filed_apart_from_the_programs_prints` |
//! | `RuntimeQuirks::entry_function` (lldb, delve) | `choreography_tests::an_entry_stop_before_the_configuration_done_and_launch_responses_answers_the_launch`; `tools::tests::the_entry_breakpoint_travels_with_the_agents_function_breakpoints_and_leaves_alone`; `tests/lldb.rs` `entry_stops_at_main_and_reasons_pass_through` |
//! | `RuntimeQuirks::adapter_entry_reasons` (lldb) | `tests/lldb.rs` `entry_stops_at_main_and_reasons_pass_through` (no code reads the field: reasons pass through unchanged) |
//! | `RuntimeQuirks::evaluate_own_frames` (debugpy) | `session::traceback::tests::the_evaluators_own_frames_are_cut_and_counted_and_the_error_kept`; `tests/debugpy` `debugpy_values::a_syntax_error_names_the_error_without_pydevds_own_frames` |
//! | `RuntimeQuirks::step_stays_in_call` (lldb-dap, codelldb; not Delve) | `session::stop_depth_tests::a_step_over_in_a_function_alone_on_its_stack_reads_two_frames_and_still_compares`, `where_a_step_may_enter_a_new_call_every_stop_reads_the_page`; `tests/native` `stop_frame_lldb::steps_in_one_call_read_two_frames_and_a_step_out_compares_with_the_callers_last_stop`, `stop_frame_delve::a_next_over_panic_into_a_deferred_call_is_a_new_frame_not_a_return_to_an_older_call` |
//! | `RuntimeQuirks::thread_ids_churn` (delve) | `tests/native/delve_truth.rs` `a_goroutine_from_an_earlier_stop_is_checked_again_before_a_step_names_it` |
//! | `RuntimeQuirks::placeholder_thread` (delve) | [`delves_placeholder_thread_does_not_stay_the_focus`]; [`delve_is_asked_for_its_threads_at_the_entry_stop_only`] |
//! | `RuntimeQuirks::stop_before_response` (lldb, delve) | `choreography_tests::an_entry_stop_before_the_configuration_done_and_launch_responses_answers_the_launch`; `tests/fake_adapter.rs` `a_stop_before_the_step_response_leaves_the_session_stopped_at_the_new_line`; `dap::client::tests::stopped_event_before_the_next_response_keeps_wire_order` |
//! | `RuntimeQuirks::debuggee_output` (lldb: PTY, delve: adapter pipes) | `session::output` `crlf_from_a_pty_reads_as_lf_and_telemetry_is_dropped`; `session::tests::a_crash_report_becomes_one_diagnostic` (CRLF); `tests/delve.rs` `exec_mode_breakpoint_context_evaluate_step_output_exit` |
//! | `RuntimeQuirks::exit_report` (delve) | `session::tests::delve_exit_code_is_read_after_disconnect`; `dap::adapters::delve` `exit_status_is_read_from_the_console_line` |
//! | `RuntimeQuirks::single_client` (lldb, delve) | data only: no code reads it (children reach debugpy only, `Quirks::child_sessions`) |
//! | `RuntimeQuirks::pipelined_stop_reads` (lldb-dap, Delve) | `session::ahead_tests` (the reads ahead used, dropped for another top frame or locals reference, read again when answered out of turn); `tests/native` `stop_frame_lldb::a_stop_reads_its_locals_ahead_of_its_stack_and_shows_the_programs_values`, `stop_frame_delve::a_go_stop_reads_its_locals_ahead_of_its_stack_and_shows_the_programs_values` |
//! | `RuntimeQuirks::reuses_ids_across_stops` (lldb, delve) | `session::handles` `a_resume_makes_every_handle_stale_and_reused_adapter_ids_get_new_handles`; `tests/lldb.rs` `c_breakpoint_context_evaluate_steps_struct_output_exit_and_stale_handles` |
//! | `RuntimeQuirks::debuggee_own_process_group` (lldb, delve) | [`lldbs_debuggee_is_recorded_and_its_process_groups_walked_at_the_first_stop`]; `tests/native_hygiene.rs` |
//! | `RuntimeQuirks::helper_processes` (lldb) | `tests/native_adapters.rs` `real_lldb_dap_stops_at_main_and_leaves_nothing_after_kill_group` (the IO shell's walk; no session code reads it) |
//! | `RuntimeQuirks::crash_markers` (lldb) | `session::tests::a_crash_report_becomes_one_diagnostic` |
//! | `RuntimeQuirks::launch_builds` (delve) | [`a_delve_launch_that_builds_has_five_minutes_not_the_request_timeout`] |
//! | `RuntimeQuirks::build_output` (delve) | `tests/delve.rs` `debug_mode_builds_stops_at_main_main_and_leaves_no_debug_bin`, `sigkill_of_agentdap_removes_its_build_directory_and_nothing_else` (`session::plan` makes the directory) |
//! | `RuntimeQuirks::evaluate_context` (lldb) | [`an_evaluate_without_a_context_goes_to_lldb_as_watch_and_to_debugpy_as_repl`]; `tests/lldb.rs` `c_breakpoint_context_evaluate_steps_struct_output_exit_and_stale_handles` |
//! | `RuntimeQuirks::mirror_evaluate` (all three) | `mirror::tests::a_mirror_evaluate_goes_out_in_an_expression_context_and_commands_are_refused`; `tests/mirror.rs` `a_mirror_client_cannot_exec_statements_on_a_debugpy_session`, `a_mirror_client_cannot_run_lldb_commands_on_an_lldb_dap_session`, `a_mirror_client_cannot_run_delve_commands_or_calls` |
//! | `Quirks::paused_frame_marker` (debugpy) | `tests/debugpy` `test_runs::an_exception_that_left_its_frame_says_where_the_program_is_paused` |
//! | `Quirks::watch_name_refusal` (lldb) | `session::tools::breakpoints::data::tests::a_member_lldb_looks_up_as_a_name_gets_the_forms_that_work` |
//! | `Quirks::calls_without_parentheses` (rdbg) | `session::own_changes_tests::rubys_calls_without_parentheses_may_change_values` |
//! | `RuntimeQuirks::refused_step` (delve) | [`a_step_delve_refuses_is_a_step_refused_stop_not_an_exception`]; `tests/native` `delve_truth::a_step_delve_refuses_is_a_refusal_not_a_stop_and_continue_finishes_the_pending_step` |
//! | `RuntimeQuirks::adapter_log_after_timestamp` (delve) | `session::host` `delves_log_lines_are_told_from_the_programs_stderr`; `tests/native` `delve_truth::a_step_delve_refuses_is_a_refusal_not_a_stop_and_continue_finishes_the_pending_step` (Delve's log line of the refusal is not the program's stderr) |
//! | `RuntimeQuirks::pause_unanswered` (debugpy) | `tests/debugpy_pause.rs` `pause_of_a_program_blocked_on_a_lock_says_why_it_keeps_running` |
//! | `RuntimeQuirks::empty_evaluate` (debugpy) | `tests/debugpy_values.rs` `evaluate_of_none_never_reads_as_nothing` |
//! | `RuntimeQuirks::signal_exit_as_status` (lldb) | `tests/lldb_truth.rs` `a_program_killed_by_a_signal_is_not_reported_as_an_exit_code` |
//! | `RuntimeQuirks::failure_shapes` (all three) | `dap::adapters::tests::a_failure_shape_finds_the_line_that_says_what_happened`; `tests/delve.rs` `a_go_panic_shows_the_panic_line_as_the_last_stderr_line` |
//! | `Quirks::child_sessions` (node: `StartDebuggingSameServer`) | `launcher_tests::the_first_target_stands_in_for_its_launcher`, `launcher_tests::later_targets_are_children_of_the_stand_in`; `tests/node` `node_worker` |
//! | `Quirks::initialized_after_launch`, `launch_response_after_configuration_done` (node) | `tests/node` `node_js` (every launch; the child's second `initialized` is ignored: `startup::configure` runs once) |
//! | `Quirks::exception_filters` (node) | `tests/node` `node_exceptions` `the_all_filter_stops_on_a_caught_exception_and_uncaught_does_not` |
//! | `Quirks::variables_are_snapshots`, `moves_unbindable_breakpoints`, `variable_paging` (node) | `tests/node` `node_js` `a_closure_stops_in_one_session_with_its_locals_and_closure_then_set_variable_output_and_exit_code` |
//! | `Quirks::attach_endpoint` (node) | `session::plan_node_tests`; `tests/node` `node_attach` |
//! | `Quirks::context_scopes` (node) | `tests/node` `node_js` `a_closure_stops_in_one_session_with_its_locals_and_closure_then_set_variable_output_and_exit_code` (the closure's `count`) |
//! | `RuntimeQuirks::inspector_notices` (node) | `launcher_tests::the_stand_in_ends_with_the_exit_status_of_the_program_agentdap_ran`; `tests/node` `node_js` (stderr exact) |
//! | `RuntimeQuirks::entry_stop_repeats` (node) | `launcher_tests::a_repeated_entry_stop_is_passed_over` |
//! | `RuntimeQuirks::entry_is_first_breakable` (node) | `launcher_tests::an_entry_stop_inside_a_function_says_the_program_ran_until_then` |
//! | `RuntimeQuirks::listening_line` (node) | `launcher_tests::the_listening_line_of_a_server_on_a_chosen_port_is_not_output` |
//! | `RuntimeQuirks::program_on_pipes` (node) | `launcher_tests::the_program_runs_on_pipes_unless_the_agent_asked_for_a_terminal`; `tests/node` `node_js` (stdout and stderr apart) |
//! | `RuntimeQuirks::exits_after_disconnect` (node: `false`) | `launcher_tests::the_stand_in_ends_with_the_exit_status_of_the_program_agentdap_ran` (the server is stopped once both sessions ended) |
//! | `RuntimeQuirks::evaluate_context`, `mirror_evaluate`, `failure_shapes` (node) | `dap::adapters::jsdebug_tests`; `tests/node` `node_exceptions` |
//! | `RuntimeQuirks::stderr_events_are_adapters` (codelldb) | [`codelldbs_stderr_events_are_its_own_words_not_the_programs`] |
//! | codelldb's other fields (`initialized_after_launch`, `launch_response_after_configuration_done`, `pause_signal`, `attach_pid_key`, `entry_function`, `debuggee_output`, `reuses_ids_across_stops`, `debuggee_own_process_group`, `evaluate_context`, `mirror_evaluate`) | `tests/native` `codelldb` (every test); `dap::adapters::codelldb::tests`; its `runInTerminal` (vadimcn/codelldb#722): [`a_codelldb_run_in_terminal_is_answered_by_the_host_request_policy`] |
//! | `RuntimeQuirks::signal_exit_as_status`, `evaluate_error_hint` (codelldb) | `tests/native` `codelldb::a_crash_stops_at_its_signal_and_the_death_that_follows_is_that_signal_not_exit_11`, `codelldb::c_breakpoint_context_evaluate_steps_output_exit_and_nothing_left` |
//! | `RuntimeQuirks::condition_error_marks` (debugpy, lldb) | `session::breakpoints::life::tests::the_adapters_condition_error_lines_name_the_condition`; `tests/debugpy` `life_debugpy::a_condition_that_raises_is_said_on_its_breakpoint_and_at_the_exit`; `tests/native` `life_lldb::a_condition_lldb_cannot_evaluate_is_said_at_the_stop_it_makes_there` |
//! | `RuntimeQuirks::total_frames_exact` (debugpy; lldb-dap's is a guess) | `session::stop_frame::tests::a_frame_of_unknown_depth_is_never_the_same`; `tests/debugpy` `stop_frame_debugpy::recursion_is_a_new_frame_at_every_depth`; `tests/native` `stop_frame_lldb::recursion_is_a_new_frame_at_every_depth` |
//! | `RuntimeQuirks::core_file` (lldb: `attach` `coreFile`; delve: `launch` `mode: core` `coreFilePath`) | `postmortem_tests::a_core_answers_at_its_stop_with_the_signal_its_description_names_and_the_reason_as_given`; `tests/native` `core_dump::a_c_core_stops_at_the_faulting_line_with_its_signal_and_locals_and_cannot_run`, `core_dump::a_go_core_through_delve_says_its_words_and_that_they_name_no_signal` (`session::postmortem` builds the arguments) |
//! | `RuntimeQuirks::stacks` (`StacksQuirks::sampler`: debugpy; `first_threads_stale`: lldb) | `tests/debugpy` `stacks_debugpy::a_deadlocks_two_threads_are_read_at_their_acquire_lines_in_one_call_and_it_runs_on` (py-spy), `stacks_debugpy::without_py_spy_a_pause_that_never_lands_gives_the_threads_and_its_late_stop_is_resumed_unreported`; `tests/native` `stacks_lldb::a_running_programs_threads_are_read_in_one_call_and_it_runs_on_to_a_later_breakpoint` (fails with `first_threads_stale` off: one thread of three); `dap::adapters::stack_sampler::tests` |
//! | `RuntimeQuirks::exception_runtime_frames` (delve) | `tests/native` `delve::a_go_panic_shows_the_panic_line_as_the_last_stderr_line` (the stop shows `main.main` at the map assignment, not `runtime.fatalpanic`) |
//! | `Quirks::one_breakpoint_per_line` (debugpy) | `tests/mcp` `mirror_control::a_persons_conditional_breakpoint_on_the_agents_line_does_not_disable_the_agents_on_debugpy` |
//! | `Quirks::breakpoint_in_stop_description` (rdbg) | [`rdbg_stops_are_credited_by_the_place_their_description_names`] |
//! | `RuntimeQuirks::hex_without_prefix` (node) | `tests/node` `restart_frame::restarting_a_frame_stops_at_the_first_line_of_its_function` |
//! | `RuntimeQuirks::failure_shapes` (rdbg: `RubyUncaught`) | `dap::adapters::quirks::tests::rubys_failure_line_is_the_exception_above_its_backtrace` |
//! | `RuntimeQuirks::evaluate_refusals`, `evaluate_raises_as_value` (rdbg) | `oversized_tests::rdbg_1_4_0_refusing_a_frame_is_an_error_not_a_string_value`, `oversized_tests::rdbg_1_4_0_marks_a_value_that_reads_like_the_raised_exception` |
//! | `Quirks::watchpoint_limit_message` (lldb) | `tools::breakpoints::data::tests::a_watchpoint_past_the_hardware_limit_is_named_as_such`; `tests/native` `breakpoint_kinds::six_watchpoints_on_lldb_four_fit_and_the_rest_are_named_as_the_hardware_limit` |
//! | `Quirks::unadvertised_settings` (delve: `hit_condition`) | `tests/native` `breakpoint_truth::delve_honours_a_hit_condition_it_does_not_advertise_and_is_not_said_to_ignore_it` |
//! | `Quirks::watch_size_in_data_id` (lldb) | `tools::breakpoints::data::tests::the_size_lldb_watches_is_read_from_its_data_id_and_a_zero_byte_watch_is_named_so`; `tests/native` `breakpoint_truth::lldb_watches_are_said_as_lldb_sets_them_size_read_writes_changes_and_addresses` |
//! | `Quirks::read_watch_stops_on_writes` (lldb on x86-64), `write_watch_on_change_only` (lldb), `watch_address_refusal` (lldb) | `tools::breakpoints::data::tests::an_expression_lldb_refuses_to_watch_gets_the_ampersand_hint_and_a_write_watch_is_said_to_need_a_change`; `tests/native` `breakpoint_truth::lldb_watches_are_said_as_lldb_sets_them_size_read_writes_changes_and_addresses` |
//! | `Quirks::breakpoints_only_added` (rdbg) | `capability_tests::an_adapter_that_only_adds_breakpoints_is_said_to_keep_the_lines_it_was_given`; `tests/ruby` `ruby_launch::send_input_feeds_the_programs_stdin_and_eof_ends_it` |
//! | `Quirks::only_requests`, `detached_program_fate` (rdbg) | `disconnect_tests::a_request_rdbg_1_4_0_does_not_know_is_refused_before_it_can_end_the_program`, `disconnect_tests::rdbg_1_4_0_is_never_said_to_keep_a_detached_program_running`; `tests/ruby` `ruby_attach` |
//! | `RuntimeQuirks::exit_report` = `AdapterExitStatus` (rdbg) | [`rdbg_the_exit_status_of_its_process_is_the_programs_in_either_order`]; `tests/ruby` `ruby_launch` (`exit 3`) |
//! | `Quirks::stop_on_entry_request`, `RuntimeQuirks::adapter_entry_reasons` (rdbg) | [`rdbg_stops_on_entry_through_attach`]; `tests/ruby` `ruby_launch::stop_on_entry_stops_before_the_first_line_runs` |
//! | `RuntimeQuirks::program_on_command_line`, `debuggee_output`, `adapter_stderr_prefixes`, `evaluate_context` (rdbg); `Quirks::exception_filters`, `exception_filter_aliases`, `variable_paging`, `launch_output_apart_from_stops` (rdbg) | `tests/ruby` `ruby_launch::a_method_stops_with_its_locals_then_steps_output_and_exit_code`; `dap::adapters::rdbg::tests` |
//! | `Quirks::launch_response_after_configuration_done` (gdb) | `gdb_quirk_tests::a_gdb_launch_answered_after_configuration_done_stops_in_frame_0_and_every_read_names_frame_0`, `gdb_quirk_tests::a_gdb_launch_error_after_configuration_done_ends_the_wait_at_once_with_gdbs_words`; `tests/native` `gdb` (scripted gdb through the binary, C11) |
//! | `Quirks::stop_on_entry_key` (gdb: `stopAtBeginningOfMainSubprogram`), `RuntimeQuirks::entry_function` (gdb: none) | `gdb_quirk_tests::stop_on_entry_asks_gdb_for_main_by_its_own_key_and_sets_no_breakpoint_of_agentdaps`; `tests/native` `gdb` `stop_on_entry_under_gdb_is_main_by_gdbs_own_setting` |
//! | `Quirks::attach_pid_key`, `variable_paging`, `moves_unbindable_breakpoints` (gdb) | data from gdb's manual; read by the same code as lldb's (`session::plan`, paging, breakpoint notes) |
//! | `RuntimeQuirks::evaluate_context`, `reuses_ids_across_stops` (gdb; frame ids from 0) | `gdb_quirk_tests::a_gdb_launch_answered_after_configuration_done_stops_in_frame_0_and_every_read_names_frame_0` |
//! | `RuntimeQuirks::mirror_evaluate` (gdb: `hover` only, `$_shell` refused: `ExpressionOnly::refused_anywhere`) | `mirror::tests::a_gdb_mirror_evaluate_goes_as_hover_and_shell_is_refused_anywhere` |
//! | `Quirks::stop_on_entry_key` (netcoredbg: `stopAtEntry`) | `netcoredbg_tests::stop_on_entry_is_stop_at_entry_and_a_csproj_launches_its_built_dll_or_says_to_build_it`; `tests/mcp` `netcoredbg` |
//! | `Quirks::variable_paging` (netcoredbg) | read by the same code as lldb's (agentdap pages itself) |
//! | `Quirks::unanswered_requests`, `loaded_sources_from_modules` (debugpy) | `inspect_more_tests::debugpys_unanswered_loaded_sources_is_refused_and_sources_come_from_modules`; `tests/debugpy` `inspect_more` |
//!
//! Written out in a recipe but equal to `STANDARD` there (so no deviation to pin):
//! `dropped_output_categories` (debugpy: `telemetry`, dropped for every adapter, pinned by
//! `session::output` `crlf_from_a_pty_reads_as_lf_and_telemetry_is_dropped`), `attach_pid_key`
//! (debugpy, delve), `variables_are_snapshots` (debugpy, lldb), `exception_filters`,
//! `child_sessions`, `terminate_debuggee_capability` (lldb), `launch_response_after_configuration_done`,
//! `exception_filters` (delve), `RuntimeQuirks::exit_report` (lldb) and `exits_after_disconnect`
//! (delve). `Quirks::stop_on_entry_key` is `STANDARD` in debugpy, lldb and delve. netcoredbg's
//! tolerance of `initialized` before the `initialize` response and of string `seq`s is no quirk
//! (every adapter gets it): `netcoredbg_tests::an_initialized_before_the_initialize_response_is_kept_and_the_entry_stop_reported`,
//! `tests/mcp` `netcoredbg`.

use std::time::Duration;

use serde_json::{json, Value};

use super::scripted::{args, plan, Rig};
use super::tools::control::StepKind;
use super::tools::inspect::{Page, Target};
use super::Action;
use crate::dap::adapters::AdapterKind;
use crate::dap::scripted::{Reply, ScriptedAdapter};

/// A `stackTrace` answer: one frame, `f` at `path:3` with id 1000.
fn top_frame(path: &str) -> Reply {
    Reply::ok(
        json!({"stackFrames": [{"id": 1000, "name": "f", "line": 3, "source": {"path": path}}], "totalFrames": 1}),
    )
}

/// An adapter of `kind` answering `initialize` with `caps` and `launch` at once, `initialized`
/// right after it; `stackTrace` answered with [`top_frame`].
fn adapter(caps: Value, path: &str) -> ScriptedAdapter {
    let mut a = ScriptedAdapter::new();
    a.on("initialize", Reply::ok(caps));
    a.on("launch", Reply::ok(Value::Null).then("initialized", Value::Null));
    a.on("stackTrace", top_frame(path));
    a
}

/// `rig`'s session stopped at a breakpoint on thread `thread`: the launch call's result.
fn stopped(rig: &mut Rig, launch: crate::reply::CallKey, thread: i64) -> crate::reply::ToolResult {
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": thread}));
    let out = rig.answered(launch);
    assert!(!out.is_error, "{}", out.text);
    out
}

#[test]
fn all_means_raised_and_a_filter_debugpy_lacks_is_named_not_sent() {
    let caps = json!({"supportsConfigurationDoneRequest": true, "exceptionBreakpointFilters": [
        {"filter": "raised", "label": "Raised Exceptions"},
        {"filter": "uncaught", "label": "Uncaught Exceptions", "default": true},
        {"filter": "userUnhandled", "label": "User Uncaught Exceptions"}]});
    let mut rig = Rig::new(adapter(caps, "/src/app.py"));
    let launch = rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": "/src/app.py"}), None),
        args(json!({"program": "/src/app.py", "exception_filters": ["all", "nope"]})),
    );
    let sent = rig.adapter.last("setExceptionBreakpoints").map(|r| r["arguments"].clone());
    assert_eq!(sent, Some(json!({"filters": ["raised"]})));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    let out = rig.answered(launch);
    assert!(
        out.text.contains(
            "exception filter `nope` is not one of debugpy's [raised, uncaught, userUnhandled]; it was ignored"
        ),
        "{}",
        out.text
    );
}

#[test]
fn debugpy_sockets_events_and_telemetry_reach_no_result() {
    let caps = json!({"supportsConfigurationDoneRequest": true});
    let mut rig = Rig::new(adapter(caps, "/src/app.py"));
    let launch = rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": "/src/app.py"}), None),
        args(json!({"program": "/src/app.py"})),
    );
    let changes = |rig: &Rig| rig.actions.iter().filter(|a| matches!(a, Action::StateChanged { .. })).count();
    let before = changes(&rig);
    rig.event("debugpySockets", json!({"sockets": [{"host": "127.0.0.1", "port": 51234, "internal": true}]}));
    rig.event("output", json!({"category": "telemetry", "output": "ptvsd", "data": {"packageVersion": "1.8.22"}}));
    assert_eq!(changes(&rig), before, "no state change");
    let out = stopped(&mut rig, launch, 1);
    assert_eq!(out.structured["output"]["text"], json!(""), "no output: {}", out.structured);
    assert_eq!(out.text.lines().count(), 2, "the stop and the note that output may follow: {}", out.text);
}

#[test]
fn a_delve_call_expression_makes_older_variable_handles_stale() {
    let mut a = adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/main.go");
    a.on("scopes", Reply::ok(json!({"scopes": [{"name": "Locals", "variablesReference": 1001}]})));
    a.on("evaluate", Reply::ok(json!({"result": "3", "type": "int", "variablesReference": 0})));
    a.on("variables", Reply::ok(json!({"variables": [{"name": "i", "value": "0", "variablesReference": 0}]})));
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        plan(AdapterKind::Delve, json!({"program": "/src/main.go", "mode": "debug"}), None),
        args(json!({"program": "/src/main.go"})),
    );
    stopped(&mut rig, launch, 1);
    let scopes = rig.call(|s, key, call, now| s.scopes(key, Target::default(), call, now));
    let locals = rig.answered(scopes).structured["scopes"][0]["ref"].as_i64().unwrap_or(0);
    let read = |rig: &mut Rig| {
        let page = Page::default();
        let call = rig.call(|s, key, call, now| s.variables(key, locals, page, call, now));
        rig.answered(call)
    };
    let evaluate = |rig: &mut Rig, expression: &str| {
        let e = expression.to_owned();
        let call = rig.call(|s, key, call, now| s.evaluate(key, e, Target::default(), None, call, now));
        assert!(!rig.answered(call).is_error);
    };

    evaluate(&mut rig, "i + 3");
    assert!(!read(&mut rig).is_error, "a read-only expression leaves the handles valid");
    let variables_sent = rig.adapter.commands().iter().filter(|c| *c == "variables").count();
    evaluate(&mut rig, "call bump()");
    let stale = read(&mut rig);
    assert!(stale.is_error, "{}", stale.text);
    assert!(
        stale.text.starts_with("target_invalidated: variables reference ")
            && stale.text.contains("from before a change that made the adapter's ids stale"),
        "{}",
        stale.text
    );
    let after = rig.adapter.commands().iter().filter(|c| *c == "variables").count();
    assert_eq!(after, variables_sent, "refused before anything was sent");
}

/// Delve 1.20.2's words for a step it refused (`service/dap/server.go`, `runUntilStopAndNotify`).
const REFUSED: &str = "Unable to step while the previous step is interrupted by a breakpoint.\nUse 'Continue' to \
                       resume the original step command.";

#[test]
fn a_step_delve_refuses_is_a_step_refused_stop_not_an_exception() {
    let refuse = |kind: AdapterKind| {
        let mut a = adapter(
            json!({"supportsConfigurationDoneRequest": true, "supportsExceptionInfoRequest": true}),
            "/src/main.go",
        );
        let body = json!({"reason": "exception", "description": "invalid command", "text": REFUSED, "threadId": 1});
        a.on("next", Reply::ok(Value::Null).then("stopped", body));
        a.on("exceptionInfo", Reply::ok(json!({"exceptionId": "invalid command", "breakMode": "always"})));
        let mut rig = Rig::new(a);
        let launch = rig.launch(
            plan(kind, json!({"program": "/src/main.go", "mode": "debug"}), None),
            args(json!({"program": "/src/main.go"})),
        );
        stopped(&mut rig, launch, 1);
        let call = rig.call(|s, key, call, now| s.step(key, StepKind::Over, None, None, None, call, now));
        let out = rig.answered(call);
        let kinds: Vec<&str> = rig.ledger().iter().map(|(k, _)| *k).collect();
        (out, rig.adapter.last("exceptionInfo").is_some(), kinds.contains(&"exception"))
    };
    let (out, asked, exception) = refuse(AdapterKind::Delve);
    assert_eq!(out.structured["stop"]["reason"], json!("step refused"), "{}", out.text);
    assert!(out.structured["stop"].get("exception").is_none(), "{}", out.structured);
    assert!(
        out.text.contains(" · nothing ran: delve refused the step; an earlier step, interrupted by a breakpoint, is still pending in Delve; `continue` resumes that step (a breakpoint may interrupt it again) · rev "),
        "{}",
        out.text
    );
    assert_eq!((asked, exception), (false, false), "no exceptionInfo asked, none in the ledger");
    // Where the quirk is not set, the same words stay the adapter's exception.
    let (out, asked, exception) = refuse(AdapterKind::Lldb);
    assert_eq!(out.structured["stop"]["reason"], json!("exception"), "{}", out.text);
    assert_eq!((asked, exception), (true, true));
}

#[test]
fn delves_placeholder_thread_does_not_stay_the_focus() {
    let mut a = adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/main.go");
    a.on("stackTrace", Reply::error("unknown goroutine 1"));
    a.on("threads", Reply::ok(json!({"threads": [{"id": 1, "name": "Dummy"}, {"id": 7, "name": "main.main"}]})));
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        plan(AdapterKind::Delve, json!({"program": "/src/main.go", "mode": "debug"}), None),
        args(json!({"program": "/src/main.go"})),
    );
    rig.event("stopped", json!({"reason": "entry", "threadId": 1}));
    assert!(rig.adapter.last("threads").is_some(), "a stop on Delve asks for the threads at once");
    assert!(rig.answered(launch).structured["stop"].is_object());
    rig.call(|s, key, call, now| s.resume(key, None, false, Some(0), call, now));
    assert_eq!(
        rig.adapter.last("continue").map(|r| r["arguments"].clone()),
        Some(json!({"threadId": 7})),
        "the real thread, not the Dummy"
    );
}

#[test]
fn delve_is_asked_for_its_threads_at_the_entry_stop_only() {
    let mut a = adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/main.go");
    a.on("threads", Reply::ok(json!({"threads": [{"id": 1, "name": "main.main"}]})));
    let mut rig = Rig::new(a);
    let launch = rig.launch(
        plan(AdapterKind::Delve, json!({"program": "/src/main.go", "mode": "debug"}), None),
        args(json!({"program": "/src/main.go"})),
    );
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1, "hitBreakpointIds": [1]}));
    assert!(rig.answered(launch).structured["stop"].is_object());
    let threads = |rig: &Rig| rig.adapter.commands().iter().filter(|c| *c == "threads").count();
    assert_eq!(threads(&rig), 0, "a breakpoint stop names a real goroutine: no thread list");
    rig.call(|s, key, call, now| s.resume(key, None, false, Some(0), call, now));
    rig.event("stopped", json!({"reason": "step", "threadId": 1}));
    assert_eq!(threads(&rig), 0, "nor a step's stop");
    assert_eq!(
        rig.adapter.last("continue").map(|r| r["arguments"].clone()),
        Some(json!({"threadId": 1})),
        "the stop's goroutine is the one resumed"
    );
}

#[test]
fn a_delve_launch_that_builds_has_five_minutes_not_the_request_timeout() {
    let start = |kind: AdapterKind| {
        let mut a = ScriptedAdapter::new();
        a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
        a.on("launch", Reply::never());
        let mut rig = Rig::new(a);
        rig.launch(plan(kind, json!({"program": "/src/main"}), None), args(json!({"program": "/src/main"})));
        rig
    };
    let errors = |rig: &Rig| -> Vec<String> {
        let records = rig.ledger();
        let errors = records.iter().filter(|(k, _)| *k == "request_error");
        errors.map(|(_, f)| f["message"].as_str().unwrap_or_default().to_owned()).collect()
    };
    let mut lldb = start(AdapterKind::Lldb);
    lldb.advance(Duration::from_secs(31));
    assert_eq!(
        errors(&lldb),
        ["`launch` got no response within 30000 ms (start-up step: launch/attach (waiting for its response))"]
    );

    let mut delve = start(AdapterKind::Delve);
    delve.advance(Duration::from_secs(299));
    assert_eq!(errors(&delve), Vec::<String>::new(), "a `go build` may take minutes");
    delve.advance(Duration::from_secs(2));
    assert_eq!(
        errors(&delve),
        ["`launch` got no response within 300000 ms (start-up step: launch/attach (waiting for its response))"]
    );
}

#[test]
fn an_evaluate_without_a_context_goes_to_lldb_as_watch_and_to_debugpy_as_repl() {
    for (kind, context) in [(AdapterKind::Lldb, "watch"), (AdapterKind::Debugpy, "repl")] {
        let mut a = adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/p.c");
        a.on("evaluate", Reply::ok(json!({"result": "7", "type": "int", "variablesReference": 0})));
        let mut rig = Rig::new(a);
        let launch = rig.launch(plan(kind, json!({"program": "/src/p"}), None), args(json!({"program": "/src/p"})));
        stopped(&mut rig, launch, 1);
        let call = rig.call(|s, key, call, now| s.evaluate(key, "a + b".into(), Target::default(), None, call, now));
        assert!(!rig.answered(call).is_error);
        assert_eq!(
            rig.adapter.last("evaluate").map(|r| r["arguments"].clone()),
            Some(json!({"expression": "a + b", "frameId": 1000, "context": context})),
            "{kind:?}"
        );
    }
}

#[test]
fn lldbs_debuggee_is_recorded_and_its_process_groups_walked_at_the_first_stop() {
    let walks = |rig: &Rig| rig.actions.iter().filter(|a| matches!(a, Action::TrackProcesses)).count();
    let mut rig = Rig::new(adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/p.c"));
    let launch =
        rig.launch(plan(AdapterKind::Lldb, json!({"program": "/src/p"}), None), args(json!({"program": "/src/p"})));
    rig.event(
        "process",
        json!({"name": "/src/p", "systemProcessId": 4242, "isLocalProcess": true, "startMethod": "launch"}),
    );
    assert!(rig.actions.iter().any(|a| matches!(a, Action::RecordDebuggee { pid: 4242 })));
    assert_eq!(walks(&rig), 1, "lldb-server and the inferior lead process groups of their own");
    stopped(&mut rig, launch, 1);
    assert_eq!(walks(&rig), 2, "helpers may start after the `process` event");
    let resume = rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.event("stopped", json!({"reason": "breakpoint", "threadId": 1}));
    assert!(rig.result(resume).is_some());
    assert_eq!(walks(&rig), 2, "once per session");

    // debugpy's debuggee shares the adapter's tree: recorded, never walked.
    let mut rig = Rig::new(adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/app.py"));
    rig.launch(
        plan(AdapterKind::Debugpy, json!({"program": "/src/app.py"}), None),
        args(json!({"program": "/src/app.py"})),
    );
    rig.event("process", json!({"name": "/src/app.py", "systemProcessId": 4343, "startMethod": "launch"}));
    assert!(rig.actions.iter().any(|a| matches!(a, Action::RecordDebuggee { pid: 4343 })));
    assert_eq!(walks(&rig), 0);
}

/// CodeLLDB 1.11.8's `stopped` at a signal follows an `output` of category `stderr`, `Stop
/// reason: signal SIGSTOP`: its own words (`RuntimeQuirks::stderr_events_are_adapters`), while
/// the program's prints come as `stdout` from its terminal.
#[test]
fn codelldbs_stderr_events_are_its_own_words_not_the_programs() {
    let mut rig = Rig::new(adapter(json!({"supportsConfigurationDoneRequest": true}), "/src/p.c"));
    let launch = rig.launch(
        plan(AdapterKind::CodeLldb, json!({"program": "/src/p", "terminal": "console"}), None),
        args(json!({"program": "/src/p"})),
    );
    rig.event("output", json!({"category": "stdout", "output": "sum=7\r\n"}));
    rig.event("output", json!({"category": "stderr", "output": "Stop reason: signal SIGSTOP\n"}));
    let out = stopped(&mut rig, launch, 1);
    assert_eq!(
        out.structured["output"]["text"],
        json!("sum=7\n[console] Stop reason: signal SIGSTOP\n"),
        "{}",
        out.structured
    );
}

/// CodeLLDB before 1.11 sent `runInTerminal` (to start its `codelldb terminal-agent`) even to a
/// client that did not offer it (vadimcn/codelldb#722); 1.11.8 asks only for `terminal:
/// "integrated"`, which agentdap's defaults never send. Whenever one arrives it is answered by the
/// `--host-requests` policy, never left waiting: denied with `success: false` and the reason, or
/// run and answered with its pid.
#[test]
fn a_codelldb_run_in_terminal_is_answered_by_the_host_request_policy() {
    use crate::dap::framing::Encoder;
    use crate::session::host::HostPolicy;
    let request = json!({"seq": 5, "type": "request", "command": "runInTerminal", "arguments": {
        "args": ["/opt/codelldb/adapter/codelldb", "terminal-agent", "--connect=41234"],
        "cwd": "", "kind": "integrated", "title": "Debug"}});
    let bytes = Encoder::new().encode(&request).unwrap_or_default();
    for policy in [HostPolicy::Deny, HostPolicy::Allow] {
        let mut a = ScriptedAdapter::new();
        a.on("initialize", Reply::ok(json!({"supportsConfigurationDoneRequest": true})));
        a.on("launch", Reply::ok(Value::Null).before("initialized", Value::Null).after_configuration_done());
        let mut rig = Rig::new(a);
        rig.s.host.policy = policy;
        rig.launch(plan(AdapterKind::CodeLldb, json!({"program": "/src/p"}), None), args(json!({"program": "/src/p"})));
        let key = rig.key;
        let n = rig.s.outbound(key).len();
        rig.s.consume(key, n);
        rig.s.on_adapter_bytes(key, &bytes, rig.now);
        let actions: Vec<Action> = std::iter::from_fn(|| rig.s.next_action(rig.now)).collect();
        let mut answer = String::from_utf8_lossy(rig.s.outbound(key)).into_owned();
        if policy == HostPolicy::Allow {
            let run = actions.into_iter().find_map(|a| match a {
                Action::RunInTerminal { reverse, command, .. } => Some((reverse, command)),
                _ => None,
            });
            let Some((reverse, command)) = run else { panic!("no RunInTerminal action") };
            assert_eq!(command.args, vec!["terminal-agent", "--connect=41234"]);
            rig.s.on_terminal_spawned(key, reverse, Ok(4242), rig.now);
            answer = String::from_utf8_lossy(rig.s.outbound(key)).into_owned();
            assert!(
                answer
                    .contains(r#""request_seq":5,"success":true,"command":"runInTerminal","body":{"processId":4242}"#),
                "{answer}"
            );
        } else {
            assert!(answer.contains(r#""request_seq":5,"success":false,"command":"runInTerminal""#), "{answer}");
        }
    }
}

/// rdbg 1.4.0 (`ExitReport::AdapterExitStatus`): no `exited`, no `terminated`; the connection
/// closes as the program ends, and the exit status of the adapter's process is the program's,
/// whichever of the two the IO shell reports first.
#[test]
fn rdbg_the_exit_status_of_its_process_is_the_programs_in_either_order() {
    for status_first in [false, true] {
        let caps = json!({"supportsConfigurationDoneRequest": true});
        let mut rig = Rig::new(adapter(caps, "/src/app.rb"));
        let launch = rig.launch(
            plan(AdapterKind::Rdbg, json!({"program": "/src/app.rb", "stopOnEntry": false}), None),
            args(json!({"program": "/src/app.rb", "stop_on_entry": false})),
        );
        assert!(rig.result(launch).is_none(), "running: the launch waits");
        let (key, now) = (rig.key, rig.now);
        if status_first {
            rig.s.on_adapter_exited(key, Some(3), None, now);
            rig.pump();
            assert!(rig.result(launch).is_none(), "the status alone ends nothing");
        }
        rig.s.on_adapter_closed(key, now);
        rig.pump();
        if !status_first {
            assert!(rig.result(launch).is_none(), "a close without the status is not yet the end");
            rig.s.on_adapter_exited(key, Some(3), None, now);
            rig.pump();
        }
        let out = rig.answered(launch);
        assert!(!out.is_error, "{}", out.text);
        assert!(out.text.starts_with("s1 exited with code 3"), "{}", out.text);
    }
}

/// rdbg 1.4.0 (`Quirks::stop_on_entry_request`): it ignores `stopOnEntry`, so a launch that
/// stops on entry sends `attach` (same arguments); one that does not sends `launch`.
#[test]
fn rdbg_stops_on_entry_through_attach() {
    for entry in [true, false] {
        let caps = json!({"supportsConfigurationDoneRequest": true});
        let mut a = adapter(caps, "/src/app.rb");
        a.on("attach", Reply::ok(Value::Null).then("initialized", Value::Null));
        let mut rig = Rig::new(a);
        rig.launch(
            plan(AdapterKind::Rdbg, json!({"program": "/src/app.rb", "stopOnEntry": entry}), None),
            args(json!({"program": "/src/app.rb", "stop_on_entry": entry})),
        );
        let (sent, other) = if entry { ("attach", "launch") } else { ("launch", "attach") };
        let got = rig.adapter.last(sent).map(|r| r["arguments"]["program"].clone());
        assert_eq!(got, Some(json!("/src/app.rb")), "{sent}");
        assert!(rig.adapter.last(other).is_none(), "{other} is not sent");
    }
}

/// rdbg 1.4.0 (`Quirks::breakpoint_in_stop_description`): its breakpoints have no ids and its
/// stops no `hitBreakpointIds`; a stop names the breakpoint's place in its description, on the
/// line rdbg moved it to. A fresh user's finding: every hit read "never hit", and a breakpoint
/// moved off a blank line was listed on that line.
#[test]
fn rdbg_stops_are_credited_by_the_place_their_description_names() {
    let (mut rig, out) = rdbg_stopped_at(&[3, 6, 20], 0, "/src/app.rb:3");
    assert_eq!(out.structured["stop"]["hit_breakpoints"], json!([1]), "{}", out.text);
    // Line 6 is blank: rdbg moved it forward to 7, the next line with code.
    rdbg_continue_to(&mut rig, "/src/app.rb:7");
    rdbg_continue_to(&mut rig, "/src/app.rb:3");
    // A place past breakpoints placed elsewhere already, and one in another file: no credit.
    rdbg_continue_to(&mut rig, "/src/app.rb:13");
    rdbg_continue_to(&mut rig, "/src/other.rb:3");
    assert_eq!(rdbg_hits(&rig), [(3, 2, Some(3)), (6, 1, Some(7)), (20, 0, None)]);
    let moved: Vec<bool> = rdbg_set(&rig).iter().map(|e| e.moved()).collect();
    assert_eq!(moved, [false, true, false]);
}

/// An rdbg 1.4.0 session of `/src/app.rb` launched with breakpoints on `lines` (answered
/// `{verified: true}` each, as rdbg does), and `later` more one-breakpoint `setBreakpoints`
/// answers scripted, stopped at the breakpoint `place` names: (rig, the launch's result).
fn rdbg_stopped_at(lines: &[u32], later: usize, place: &str) -> (Rig, crate::reply::ToolResult) {
    let caps = json!({"supportsConfigurationDoneRequest": true});
    let mut a = adapter(caps, "/src/app.rb");
    let verified: Vec<Value> = lines.iter().map(|_| json!({"verified": true})).collect();
    a.on("setBreakpoints", Reply::ok(json!({ "breakpoints": verified })));
    for _ in 0..later {
        a.on("setBreakpoints", Reply::ok(json!({"breakpoints": [{"verified": true}]})));
    }
    let mut rig = Rig::new(a);
    let breakpoints: Vec<Value> = lines.iter().map(|l| json!({"path": "/src/app.rb", "line": l})).collect();
    let launch = rig.launch(
        plan(AdapterKind::Rdbg, json!({"program": "/src/app.rb", "stopOnEntry": false}), None),
        args(json!({"program": "/src/app.rb", "stop_on_entry": false, "breakpoints": breakpoints})),
    );
    rig.event("stopped", rdbg_stop(place));
    let out = rig.answered(launch);
    (rig, out)
}

/// rdbg 1.4.0's `stopped` at a line breakpoint: its description names the place.
fn rdbg_stop(place: &str) -> Value {
    json!({"reason": "breakpoint", "description": format!(" BP - Line  {place} (line)"), "threadId": 1})
}

/// `continue`, and rdbg stops at the breakpoint `place` names.
fn rdbg_continue_to(rig: &mut Rig, place: &str) {
    rig.call(|s, key, call, now| s.resume(key, None, false, None, call, now));
    rig.event("continued", json!({"threadId": 1, "allThreadsContinued": true}));
    rig.event("stopped", rdbg_stop(place));
}

fn rdbg_set(rig: &Rig) -> Vec<crate::session::breakpoints::Entry> {
    rig.s.get(rig.key).expect("session").breaks.store.get("/src/app.rb").to_vec()
}

/// Each breakpoint of `/src/app.rb`: (line asked for, hits, line it is bound at).
fn rdbg_hits(rig: &Rig) -> Vec<(u32, u32, Option<u32>)> {
    rdbg_set(rig).iter().map(|e| (e.requested.line, e.hits.count, e.bound.as_ref().and_then(|b| b.line))).collect()
}

/// breaker2: rdbg 1.4.0 moves a line breakpoint only forward, to the first line with code at or
/// after it (`breakpoint.rb` `LineBreakpoint#try_activate`: `lines.bsearch{|l| line <= l}`).
/// `on_stop_at` credited the breakpoint whose *requested* line was nearest either way, so a
/// breakpoint on a comment at line 2, moved to line 5, was credited to the breakpoint at line 6
/// (one line away) when it stopped at 5; that one was listed as moved to 5 and the one the
/// program stopped at read "never hit". Each of two stops must credit its own breakpoint.
#[test]
fn rdbg_a_breakpoint_moved_forward_is_not_credited_to_the_next_one() {
    // Lines 2-4 are comments: rdbg activates the first at line 5.
    let (mut rig, out) = rdbg_stopped_at(&[2, 6], 0, "/src/app.rb:5");
    assert_eq!(out.structured["stop"]["hit_breakpoints"], json!([1]), "the stop at 5 is line 2's: {}", out.text);
    rdbg_continue_to(&mut rig, "/src/app.rb:6");
    assert_eq!(rdbg_hits(&rig), [(2, 1, Some(5)), (6, 1, Some(6))]);
}

/// breaker2: rdbg 1.4.0 keeps stopping at a line the agent's set no longer has
/// (`Quirks::breakpoints_only_added`; agentdap warns that it does). A stop there names that line;
/// `on_stop_at` found no breakpoint at it and credited the nearest one of the file, however far,
/// and bound it there: the agent's breakpoint at line 10 read hit and "moved to line 3", though
/// the program stopped at the line 3 the agent took out.
#[test]
fn rdbg_a_stop_at_a_line_taken_out_is_not_credited_to_another_breakpoint() {
    let (mut rig, out) = rdbg_stopped_at(&[3, 10], 1, "/src/app.rb:3");
    assert_eq!(out.structured["stop"]["hit_breakpoints"], json!([1]), "{}", out.text);
    let list = vec![serde_json::from_value(json!({"line": 10})).expect("a breakpoint")];
    let call = rig.call(|s, key, call, now| {
        s.set_breakpoints(Some(key), "/src/app.rb".into(), crate::session::breakpoints::Mode::Replace, list, call, now)
    });
    let out = rig.answered(call);
    assert!(!out.is_error, "{}", out.text);
    // rdbg still stops at line 3.
    rdbg_continue_to(&mut rig, "/src/app.rb:3");
    let hits = rdbg_hits(&rig);
    assert_eq!(hits.len(), 1);
    assert_eq!((hits[0].0, hits[0].1), (10, 0), "line 10's breakpoint was not hit: {hits:?}");
    assert_ne!(hits[0].2, Some(3), "line 10's breakpoint did not move to line 3");
}
