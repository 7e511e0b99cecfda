"""Ends the process from inside a run with os._exit(3): xferlab must record the run as failed
and keep the runs before it (tests/integration/test_cli_faults.cpp)."""
import os


def main(ctx):
    ctx.worker(0).copy()
    os._exit(3)
