// Says once, before the suite runs, whether the GPU tests run here and, if not, why.
import { gpu } from './gpu.js';

export default function announce(): void {
  if (gpu.available) console.log(`rxcuda: GPU tests run on ${gpu.description}`);
  else console.log(`rxcuda: GPU tests are skipped: ${gpu.reason}`);
}
