#!/usr/bin/env bash
# The measurements behind docs/results/h200-seed.md, in one call on the GPU host (after
# tools/gpu-host.sh has built build-gpu). Each variant is one `xferlab run`; reports and
# results go to DIR/<variant>/, everything is packed into DIR/measure.tar.gz at the end.
#   tools/gpu-measure.sh DIR [variant ...]     (default: every variant below)
set -u -o pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
dir=${1:?usage: gpu-measure.sh DIR [variant ...]}; shift
mkdir -p "$dir/m"
export LD_LIBRARY_PATH="$root/.deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
x=$root/build-gpu/xferlab
gpus=$(nvidia-smi -L 2>/dev/null | wc -l)

declare -A variants=(
    [seed-1gpu-pageable]="seed-h2d-threads.toml --set transfer.devices=[0]"
    [seed-1gpu-pinned]="seed-h2d-threads.toml --set transfer.devices=[0] --set transfer.host_memory=pinned"
    [seed-per-gpu-pageable]="seed-h2d-threads.toml --set threads.count=$gpus"
    [seed-per-gpu-pinned]="seed-h2d-threads.toml --set threads.count=$gpus --set transfer.host_memory=pinned"
    [isolate-gil-1gpu]="isolate-gil.toml --set transfer.devices=[0]"
    [isolate-thread-attrs-1gpu]="isolate-thread-attrs.toml --set transfer.devices=[0]"
    [scaling-1gpu]="scaling-threads.toml --set transfer.devices=[0]"
    [python-payloads-1gpu]="python-payloads.toml --set transfer.devices=[0]"
    # Threads vs processes vs MPI ranks in one report: run under mpirun so that the mpi row
    # runs too (rank 0 runs the other rows alone).
    [processes-1gpu]="mpi:4 seed-processes.toml --set transfer.devices=[0]"
    [processes-per-gpu]="mpi:$gpus seed-processes.toml --set threads.count=$gpus"
    # The same without mpirun (the mpi row is skipped): does running inside an MPI job change
    # the other rows?
    # The 4-GPU issue's memory variants on the GPUs this host has, one worker per GPU.
    [seed-per-gpu-registered]="seed-h2d-threads.toml --set threads.count=$gpus --set transfer.host_memory=registered"
    [processes-per-gpu-pinned]="mpi:$gpus seed-processes.toml --set threads.count=$gpus --set transfer.host_memory=pinned"
    [processes-per-gpu-registered]="mpi:$gpus seed-processes.toml --set threads.count=$gpus --set transfer.host_memory=registered"
    [processes-1gpu-nompi]="seed-processes.toml --set transfer.devices=[0]"
    [processes-per-gpu-nompi]="seed-processes.toml --set threads.count=$gpus"
)
order=(seed-1gpu-pageable seed-per-gpu-pageable seed-1gpu-pinned seed-per-gpu-pinned
    isolate-gil-1gpu isolate-thread-attrs-1gpu scaling-1gpu python-payloads-1gpu
    processes-1gpu processes-per-gpu)
[ $# -gt 0 ] && order=("$@")

for v in "${order[@]}"; do
    read -r -a args <<<"${variants[$v]}"
    prefix=()
    if [[ ${args[0]} == mpi:* ]]; then
        prefix=(mpirun -n "${args[0]#mpi:}" --oversubscribe --bind-to none)
        [ "$(id -u)" = 0 ] && prefix+=(--allow-run-as-root)
        args=("${args[@]:1}")
    fi
    file=$root/scenarios/${args[0]}
    echo "== $v ($(date -u +%H:%M:%S))"
    timeout 300 "${prefix[@]}" "$x" run "$file" "${args[@]:1}" --quiet --out "$dir/m/$v" >"$dir/m/$v.txt" 2>&1
    echo "   rc=$?"
    grep -A8 "^Bandwidth" "$dir/m/$v.txt"
done
tar -czf "$dir/measure.tar.gz" -C "$dir" m && rm -rf "$dir/m"
