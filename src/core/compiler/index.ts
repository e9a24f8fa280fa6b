// compiler/: CUDA C++ compiled with NVRTC for a device's architecture, checked options, and the
// compiled code cached on disk. Imports base/ and native/.
export { compile, type CompileOptions, type CompiledProgram, type Defines } from './program.js';
