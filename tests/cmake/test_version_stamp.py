"""cmake/version_stamp.cmake, run as the build runs it, in a throw-away git repository: the
header names the commit, then the commit with -dirty once a file changes, then the next commit;
an unchanged tree leaves the header untouched (so nothing recompiles); no repository at all
gives "unknown". Before it, the describe was taken at configure time, and a build folder
rebuilt after later commits named the configure's commit in every results file."""
import os
import subprocess
import sys
import tempfile
import time

SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "cmake",
                      "version_stamp.cmake")
CMAKE = sys.argv[1] if len(sys.argv) > 1 else "cmake"


def git(repo, *args):
    env = dict(os.environ, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t",
               GIT_COMMITTER_EMAIL="t@t")
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True, env=env).stdout.strip()


def stamp(repo, out):
    subprocess.run([CMAKE, f"-DSOURCE_DIR={repo}", f"-DOUT={out}", "-P", SCRIPT], check=True)
    with open(out) as f:
        text = f.read()
    prefix = '#define XFER_GIT_DESCRIBE "'
    line = next(line for line in text.splitlines() if line.startswith(prefix))
    return line[len(prefix):-1]


def main():
    with tempfile.TemporaryDirectory() as tmp:
        repo, out = os.path.join(tmp, "repo"), os.path.join(tmp, "stamp.h")
        os.mkdir(repo)
        git(repo, "init", "-q")
        with open(os.path.join(repo, "a.txt"), "w") as f:
            f.write("one\n")
        git(repo, "add", "a.txt")
        git(repo, "commit", "-qm", "one")
        first = git(repo, "rev-parse", "--short", "HEAD")
        assert stamp(repo, out) == first, (stamp(repo, out), first)

        before = os.stat(out).st_mtime_ns
        time.sleep(0.05)
        assert stamp(repo, out) == first
        assert os.stat(out).st_mtime_ns == before, "an unchanged tree rewrote the header"

        with open(os.path.join(repo, "a.txt"), "a") as f:
            f.write("two\n")
        assert stamp(repo, out) == first + "-dirty"

        git(repo, "commit", "-qam", "two")
        second = git(repo, "rev-parse", "--short", "HEAD")
        assert second != first
        assert stamp(repo, out) == second

        bare = os.path.join(tmp, "not-a-repo")
        os.mkdir(bare)
        assert stamp(bare, out) == "unknown"

        # Called without its arguments: it stops and names them.
        r = subprocess.run([CMAKE, f"-DOUT={out}", "-P", SCRIPT], capture_output=True, text=True)
        assert r.returncode != 0
        assert "version_stamp.cmake: SOURCE_DIR and OUT are required" in r.stderr, r.stderr
    print("version stamp: commit, -dirty, next commit, unchanged header kept, unknown, "
          "arguments missing")


if __name__ == "__main__":
    main()
