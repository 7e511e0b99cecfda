"""Changes the process's working folder to params.to, then copies once: xferlab's output folder,
given as a relative path, must stay the folder it resolved before any payload ran
(tests/integration/test_cli_payload_folders.cpp)."""
import os


def main(ctx):
    os.chdir(ctx.params["to"])
    ctx.worker(0).copy()
