"""A native runner for helm-unittest suites: upstream's file format and semantics, rendered with
the embedded Helm renderer, with renders shared between tests whose inputs are the same.

Entry points: `runner.run_suites` (a `RunResult`) and `cli_entry.run` (the console command).
"""
