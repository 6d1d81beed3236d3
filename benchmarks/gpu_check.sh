#!/usr/bin/env bash
# The checks and benchmarks a change owes the GPU, in stages, each bounded in time, their logs and
# results under $OUT (or ./gpu-logs); the last lines printed are a short summary of each stage.
#
#   bash benchmarks/gpu_check.sh tests aliasing element percall startup   # one call's worth
#   bash benchmarks/gpu_check.sh seed phases                              # a first line of random.seed; a whole run by step
#   bash benchmarks/gpu_check.sh loops-a loops-b                          # the row-loop workloads
#   bash benchmarks/gpu_check.sh vectorized cliffs
#   bash benchmarks/gpu_check.sh cliffs-a cliffs-b                        # the routed names in two bounded halves
#   bash benchmarks/gpu_check.sh loops vectorized-ag                      # auto mode (and gpu) beside NumPy only
#   bash benchmarks/gpu_check.sh loops vectorized-ag-a vectorized-ag-b    # the same, the vectorized ones in two bounded halves
set -u
cd "$(dirname "$0")/.."
out="${OUT:-gpu-logs}"; mkdir -p "$out/b"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}" PYTHONUNBUFFERED=1
summary=()
stage() {  # stage NAME SECONDS COMMAND...: run it, keep its log, note its last line
    local name=$1 secs=$2; shift 2
    local t0=$SECONDS
    timeout "$secs" "$@" > "$out/b/$name.log" 2>&1
    local rc=$?
    summary+=("$name: rc=$rc, $((SECONDS - t0)) s: $(grep -v '^\s*$' "$out/b/$name.log" | tail -1 | cut -c1-160)")
}
LOOPS_A="cholesky_rows lu_rows triangular_solve gram_schmidt triangular_product rank_k_update covariance_loop correlation_loop"
LOOPS_B="recursive_filter crc_loop jacobi_1d mandelbrot_rows adi_sweeps conv2d_shifts tiny_cnn"
VEC_A="black_scholes einsum_contractions fft_convolution heat_stencil image_filters kmeans linalg_solve mandelbrot matrix_products"
VEC_B="monte_carlo_pi nbody pairwise_distances polynomial prefix_scans qr_svd softmax sort_search statistics"
only() { for n in "$@"; do printf -- '--only %s ' "$n"; done; }
for s in "$@"; do
    case "$s" in
        tests) stage tests 300 bash tests/gpu_run.sh; cp -r "$out/tests" "$out/b/" 2>/dev/null ;;
        aliasing) stage aliasing 90 env XPSHIM_ALIASING_REAL=1 XPSHIM_ALIASING_EXAMPLES=200 \
                      python3 -m pytest -q -p no:cacheprovider tests/gpu_side/test_aliasing.py -k Programs ;;
        element) stage element 45 python3 benchmarks/element_read.py --out "$out/b" ;;
        percall) stage percall 80 python3 benchmarks/run.py --only percall --out "$out/b" --tag percall ;;
        phases) stage phases 60 python3 benchmarks/startup_phases.py --size 1920x1080 --rounds 5 --out "$out/b" ;;
        seed) printf 'import xpshim as np\nnp.random.seed(0)\na = np.random.rand(1000, 1000)\nprint(float(a.sum()), float(a[0, 0]))\n' > "$out/b/seedfirst.py"
              stage seed 60 bash -c "cd '$out/b' && python3 -m xpshim run seedfirst.py && XPSHIM_DEVICE=cpu python3 seedfirst.py" ;;
        startup) stage startup 100 python3 benchmarks/startup.py --device auto --rounds 7 \
                     --sizes 1920x1080,6000x4000 --out "$out/b/startup" ;;
        loops-a) stage loops-a 290 python3 benchmarks/run_workloads.py --budget 3 --tag loops-a --out "$out/b" $(only $LOOPS_A) ;;
        loops-b) stage loops-b 290 python3 benchmarks/run_workloads.py --budget 3 --tag loops-b --out "$out/b" $(only $LOOPS_B) ;;
        loops) stage loops 240 python3 benchmarks/run_workloads.py --budget 3 --variant xpshim-auto --tag loops --out "$out/b" $(only $LOOPS_A $LOOPS_B) ;;
        vectorized-ag-a|vectorized-ag-b)  # (the two halves, each bounded: a fresh machine compiles every kernel)
            if [ "$s" = vectorized-ag-a ]; then names=$VEC_A; else names=$VEC_B; fi
            stage "$s" 220 python3 benchmarks/run_workloads.py --budget 3 --variant xpshim-auto --variant xpshim-gpu \
                --tag "$s" --out "$out/b" $(only $names) ;;
        vectorized-ag) stage vectorized-ag 240 python3 benchmarks/run_workloads.py --kind vectorized --budget 3 --variant xpshim-auto --variant xpshim-gpu --tag vectorized-ag --out "$out/b" ;;
        vectorized) stage vectorized 400 python3 benchmarks/run_workloads.py --kind vectorized --budget 3 --tag vectorized --out "$out/b" ;;
        cliffs) stage cliffs 300 python3 benchmarks/cliffs.py --tag cliffs --out "$out/b" ;;
        cliffs-a|cliffs-b)  # half the names each, none started after $CLIFF_SECONDS (200) s: the rest listed as not reached
            if [ "$s" = cliffs-a ]; then part=0/2; else part=1/2; fi
            stage "$s" 280 python3 benchmarks/cliffs.py --part "$part" --seconds "${CLIFF_SECONDS:-200}" --tag "$s" --out "$out/b" ;;
        *) echo "unknown stage $s" >&2; exit 2 ;;
    esac
done
printf '%s\n' "${summary[@]}"
