"""A native runner for helm-unittest suites: upstream's file format and semantics, rendered with
the embedded Helm renderer, with renders shared between tests whose inputs are the same.

Entry points: `runner.run_suites` (a `model.test_results.RunResult`) and `cli_entry.run` (the console
command). The Go-compatible parsing it shares with the core (YAML v3, fmt, RE2, JSONPath) is `gocompat`.
"""
