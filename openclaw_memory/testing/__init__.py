"""Testing a project's memory setup: `harness` drives a conversation in OpenClaw's hook order
(no pytest needed), and `plugin` is the pytest plugin with its fixtures, loaded by pytest through
the `pytest11` entry point."""
