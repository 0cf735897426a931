#!/usr/bin/env bash
# A fresh process's first answer on a stored namespace, int8 ONNX (default) vs fp32 torch,
# interleaved, 5 runs each: `memgraph ask` and the five-line Memory script, under
# /usr/bin/time -v. Prints user+sys CPU seconds and peak RSS per run, then the medians.
# Usage: bash docs/bench-light/cold_start.sh WORKDIR   (needs the [torch] extra for the baseline)
set -euo pipefail
work=${1:?usage: cold_start.sh WORKDIR}
here=$(cd "$(dirname "$0")" && pwd)
export HF_HUB_OFFLINE=1 ANONYMIZED_TELEMETRY=False
for e in minilm minilm-torch; do  # one stored namespace per model (the demo conversation)
    [ -d "$work/mem-$e" ] || memgraph --embeddings "$e" --data-dir "$work/mem-$e" ingest "$here/../../examples/conversation.json" --namespace demo >/dev/null
done
measure() {  # label, command...: "label cpu_seconds peak_mb"
    local label=$1; shift
    /usr/bin/time -v "$@" >/dev/null 2>"$work/time.txt"
    awk -v l="$label" '/User time/{u=$NF} /System time/{s=$NF} /Maximum resident/{m=$NF} END{printf "%s %.2f %.0f\n", l, u+s, m/1024}' "$work/time.txt"
}
for i in 1 2 3 4 5; do
    for e in minilm minilm-torch; do
        MEMGRAPH_EMBEDDINGS=$e measure "ask/$e" memgraph --data-dir "$work/mem-$e" ask "When did Jonas hand in his notice?" --namespace demo
        MEMGRAPH_EMBEDDINGS=$e measure "script/$e" python "$here/first_answer.py" "$work/mem-$e" demo
    done
done | tee "$work/runs.txt"
echo "median of 5 (CPU s, peak MB), load average $(cut -d' ' -f1-3 /proc/loadavg):"
for l in ask/minilm ask/minilm-torch script/minilm script/minilm-torch; do
    cpu=$(grep "^$l " "$work/runs.txt" | awk '{print $2}' | sort -n | sed -n 3p)
    mb=$(grep "^$l " "$work/runs.txt" | awk '{print $3}' | sort -n | sed -n 3p)
    echo "$l: $cpu CPU-s, $mb MB peak RSS"
done
