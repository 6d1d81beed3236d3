#!/usr/bin/env bash
# The GPU tests on a GPU machine, sharded, with their logs under $OUT (or ./gpu-logs):
#   bash tests/gpu_run.sh [pytest args...]     (default: -m "gpu and not diff" tests)
# Prints each shard's summary line and the total; exit status 0 when no shard failed.
set -u
cd "$(dirname "$0")/.."
out="${OUT:-gpu-logs}"; mkdir -p "$out/tests"
n="${SHARDS:-8}"
args=("$@"); [ ${#args[@]} -gt 0 ] || args=(-m "gpu and not diff" tests)
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
for i in $(seq 0 $((n - 1))); do
    XPSHIM_SHARD="$i/$n" python3 -m pytest -q -p no:cacheprovider -rfE --tb=short "${args[@]}" > "$out/tests/shard$i.log" 2>&1 &
done
wait
passed=0; failed=0
for i in $(seq 0 $((n - 1))); do
    # (a shard whose share of the selection is empty ends "N deselected in ...": nothing ran, nothing failed)
    line=$(grep -E "^(=+ )?[0-9]+ (passed|failed)|no tests ran|^(=+ )?[0-9]+ deselected in" "$out/tests/shard$i.log" | tail -1)
    if [ -z "$line" ]; then  # no summary: the shard's process died (a crash ends it without one)
        line="1 failed: no summary line (the process died: $(grep -m1 -E "Fatal Python error|Killed|Error" "$out/tests/shard$i.log"))"
        echo "ERROR shard $i died: see shard$i.log" >> "$out/tests/died.txt"
    fi
    echo "shard $i: $line"
    p=$(grep -oE "[0-9]+ passed" <<< "$line" | grep -oE "[0-9]+")
    f=$(grep -oE "[0-9]+ (failed|errors?)" <<< "$line" | awk '{s += $1} END {print s + 0}')
    passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0}))
done
grep -h "^FAILED\|^ERROR" "$out"/tests/shard*.log "$out"/tests/died.txt 2> /dev/null | sort > "$out/tests/failed.txt"
echo "GPU tests: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
