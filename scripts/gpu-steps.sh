# Sourced by the GPU scripts: `step NAME SECONDS COMMAND...` runs a command under a deadline,
# appends its output to $out/log.txt and one line (ok, failed, or HUNG) to $summary, so that a
# step that hangs is reported and the rest still run. The caller sets `out` and `summary`.
step() {
  local name=$1 limit=$2
  shift 2
  local started=$SECONDS
  timeout "$limit" "$@" >> "$out/log.txt" 2>&1
  local rc=$?
  local verdict=ok
  [[ $rc -eq 124 ]] && verdict="HUNG (killed after ${limit}s)"
  [[ $rc -ne 0 && $rc -ne 124 ]] && verdict="failed (exit $rc)"
  printf '%-48s %-28s %4ss\n' "$name" "$verdict" $((SECONDS - started)) | tee -a "$summary"
}
