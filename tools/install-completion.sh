#!/usr/bin/env bash
# Installs xferlab's bash completion, as the program prints it (`xferlab completion bash`), where
# bash-completion looks for a user's completions: $BASH_COMPLETION_USER_DIR/completions, else
# ${XDG_DATA_HOME:-~/.local/share}/bash-completion/completions. New shells with bash-completion
# (Debian package bash-completion) load it when xferlab is first completed; any shell can
# `source` the file. tools/bootstrap.sh calls this after building.
#   tools/install-completion.sh [BUILD_DIR]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build_dir=${1:-build}
dir=${BASH_COMPLETION_USER_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/bash-completion}/completions
mkdir -p "$dir"
# Written whole or not at all: a failed run leaves the old file.
"$build_dir/xferlab" completion bash >"$dir/xferlab.tmp"
mv "$dir/xferlab.tmp" "$dir/xferlab"
echo "bash completion: $dir/xferlab (new shells with bash-completion load it; this one: source $dir/xferlab)" >&2
