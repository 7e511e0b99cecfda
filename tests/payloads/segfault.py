"""Crashes the process (SIGSEGV) by reading address 0: xferlab's fatal-signal handler must say
which run was executing and where the completed runs are (tests/integration/test_cli_faults.cpp)."""
import ctypes


def main(ctx):
    ctypes.string_at(0)
