#!/usr/bin/env bash
# A fresh process's first answer on a stored namespace, two installs of memgraph-agents side by
# side (say the commit before a change and after it), interleaved, 5 runs each: `memgraph ask`
# and the five-line Memory script, under /usr/bin/time -v. Prints user+sys CPU seconds and peak
# RSS per run, then the medians. Each install stores the demo conversation in its own data dir
# first, then answers once untimed (a first use may prepare caches in the data dir: its cost is
# printed as "first").
# Usage: bash docs/bench-light/cold_start_ab.sh WORKDIR VENV_A VENV_B   (venvs with memgraph-agents installed)
set -euo pipefail
work=${1:?usage: cold_start_ab.sh WORKDIR VENV_A VENV_B}
a=${2:?}; b=${3:?}
here=$(cd "$(dirname "$0")" && pwd)
export HF_HUB_OFFLINE=1 ANONYMIZED_TELEMETRY=False MEMGRAPH_LLM=none
mkdir -p "$work"
q="When did Jonas hand in his notice?"
measure() {  # label, command...: "label cpu_seconds peak_mb"
    local label=$1; shift
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt"
    awk -v l="$label" '/User time/{u=$NF} /System time/{s=$NF} /Maximum resident/{m=$NF} END{printf "%s %.2f %.0f\n", l, u+s, m/1024}' "$work/time.txt"
}
for v in A B; do
    venv=$a; [ $v = B ] && venv=$b
    [ -d "$work/mem-$v" ] || "$venv/bin/memgraph" --data-dir "$work/mem-$v" ingest "$here/../../examples/conversation.json" --namespace demo >/dev/null
    measure "first/$v" "$venv/bin/memgraph" --data-dir "$work/mem-$v" ask "$q" --namespace demo
done | tee "$work/first.txt"
for i in 1 2 3 4 5; do
    for v in A B; do
        venv=$a; [ $v = B ] && venv=$b
        measure "ask/$v" "$venv/bin/memgraph" --data-dir "$work/mem-$v" ask "$q" --namespace demo
        measure "script/$v" "$venv/bin/python" "$here/first_answer.py" "$work/mem-$v" demo
    done
done | tee "$work/runs.txt"
echo "median of 5 (CPU s, peak MB), load average $(cut -d' ' -f1-3 /proc/loadavg):"
for l in ask/A ask/B script/A script/B; do
    cpu=$(grep "^$l " "$work/runs.txt" | awk '{print $2}' | sort -n | sed -n 3p)
    mb=$(grep "^$l " "$work/runs.txt" | awk '{print $3}' | sort -n | sed -n 3p)
    echo "$l: $cpu CPU-s, $mb MB peak RSS"
done
