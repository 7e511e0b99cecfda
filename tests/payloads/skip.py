"""Test payload: skips its run before any copy (ctx.skip), as a payload does whose framework is
not importable."""


def main(ctx):
    ctx.skip("nothing to copy with here (test payload)")
