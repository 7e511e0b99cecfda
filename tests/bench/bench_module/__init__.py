"""The sections of tests/bench/bench-module.py, the Python module's benchmark: one module each, and
common.py for what they share (buffers, timing, engine settings as key=value)."""
