"""Moves the folder params.folder away (to params.folder + "-moved") and makes an empty folder of
the same name in its place: xferlab must not write its results into the new one
(tests/integration/test_cli_payload_folders.cpp)."""
import os


def main(ctx):
    folder = ctx.params["folder"]
    os.rename(folder, folder + "-moved")
    os.mkdir(folder)
    ctx.worker(0).copy()
