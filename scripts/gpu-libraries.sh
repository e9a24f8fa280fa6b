#!/usr/bin/env bash
# The GPU libraries' checks on a machine with a GPU, after the build (npm ci): their test files
# on both backends and the GPU-only ones, the two examples, bench/libraries and the studies of
# bench/study (gemm-f16, replay-examples on the GPU and on the host device, library-path), each
# under a deadline. Writes each test file's vitest JSON report, the examples' output,
# libraries.json (the benchmark) and each study's JSON into $OUT (default: ./gpu-results), then
# prints one JSON summary. PARTS=tests,bench,studies (the default: all three) runs only some, so
# that the run can be split over commands of a few minutes each.
set -u
cd "$(dirname "$0")/.."
out=${OUT:-gpu-results}
mkdir -p "$out"
# The test helpers and the C++ baselines, which npm ci does not build.
[ -f build/Release/rxcuda_bench.node ] && [ -f build/Release/rxcuda_test.node ] || node scripts/build-extras.mjs all > "$out/build-extras.log" 2>&1
files=(test/behaviour/blas.test.ts test/behaviour/fft.test.ts test/behaviour/library-arguments.test.ts
       test/behaviour/library-order.test.ts test/behaviour/library-graphs.test.ts test/behaviour/library-operators.test.ts
       test/behaviour/library-repeats.test.ts test/behaviour/replay-examples.test.ts test/behaviour/replay.test.ts
       test/behaviour/graph.test.ts
       test/gpu/libraries-agree.test.ts test/host/library-loading.test.ts test/host/library-types.test.ts)
results=()
parts=",${PARTS:-tests,bench,studies},"
part() { [[ $parts == *",$1,"* ]]; }
part tests || files=()
for file in "${files[@]}"; do
  name=$(basename "$file" .test.ts)
  timeout 300 npx vitest run "$file" --reporter=json --outputFile="$out/$name.json" > "$out/$name.log" 2>&1
  results+=("{\"file\":\"$file\",\"exit\":$?}")
done
part tests && for example in perceptron spectrogram; do
  timeout 120 node "dist/examples/$example.js" > "$out/$example.txt" 2>&1
  results+=("{\"file\":\"examples/$example.ts\",\"exit\":$?}")
done
if part bench; then
  OUT=$out timeout 600 node bench/libraries.mjs > "$out/bench-libraries.log" 2>&1
  results+=("{\"file\":\"bench/libraries.mjs\",\"exit\":$?}")
fi
part studies && for study in gemm-f16 replay-examples replay-examples-host library-path; do
  script=bench/study/${study%-host}.mjs
  device=$([ "$study" = replay-examples-host ] && echo host || echo default)
  DEVICE=$device timeout 600 node "$script" > "$out/study-$study.json" 2> "$out/study-$study.log"
  results+=("{\"file\":\"$script\",\"device\":\"$device\",\"exit\":$?}")
done
summary=$(IFS=,; echo "[${results[*]:-}]")
node -e '
  const fs = require("node:fs"), out = process.argv[1], runs = JSON.parse(process.argv[2]);
  for (const run of runs) {
    const report = `${out}/${run.file.split("/").pop().replace(".test.ts", "")}.json`;
    if (run.file.endsWith(".test.ts") && fs.existsSync(report)) {
      const r = JSON.parse(fs.readFileSync(report, "utf8"));
      Object.assign(run, { passed: r.numPassedTests, failed: r.numFailedTests, skipped: r.numPendingTests });
      run.failures = r.testResults.flatMap((f) => f.assertionResults.filter((a) => a.status === "failed").map((a) => `${a.fullName}: ${(a.failureMessages[0] ?? "").split("\n")[0]}`));
    }
  }
  const bench = `${out}/libraries.json`;
  const read = (file) => { try { return JSON.parse(fs.readFileSync(file, "utf8")); } catch { return null; } };
  const studies = Object.fromEntries(["gemm-f16", "replay-examples", "replay-examples-host", "library-path"].map((s) => [s, read(`${out}/study-${s}.json`)]));
  console.log(JSON.stringify({ runs, bench: read(bench), studies }, null, 2));
' "$out" "$summary" | tee "$out/libraries-check.json"
