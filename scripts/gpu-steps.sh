# Sourced by the GPU scripts, from the project's root: the results folder `out` ($OUT, default
# ./gpu-results) with an empty summary and a log that starts with the GPU's name, and `step NAME
# SECONDS COMMAND...`, which runs a command under a deadline, appends its output to $out/log.txt
# (after a line `=== step: NAME`) and
# one line (ok, failed, or HUNG) to $out/summary.txt, so that a step that hangs is reported and
# the rest still run.
out=${OUT:-gpu-results}
summary="$out/summary.txt"
mkdir -p "$out"
: > "$summary"
echo "== $(date -u) $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null)" >> "$out/log.txt"

step() {
  local name=$1 limit=$2
  shift 2
  local started=$SECONDS
  echo "=== step: $name" >> "$out/log.txt"
  timeout "$limit" "$@" >> "$out/log.txt" 2>&1
  local rc=$?
  local verdict=ok
  [[ $rc -eq 124 ]] && verdict="HUNG (killed after ${limit}s)"
  [[ $rc -ne 0 && $rc -ne 124 ]] && verdict="failed (exit $rc)"
  printf '%-48s %-28s %4ss\n' "$name" "$verdict" $((SECONDS - started)) | tee -a "$summary"
}
