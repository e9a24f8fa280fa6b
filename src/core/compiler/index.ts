// compiler/: CUDA C++ compiled with NVRTC for a device's architecture, checked options, and the
// compiled code cached on disk; the host device's check of kernel sources (NVRTC, else nvcc),
// and the PTX it reads. Imports base/ and native/.
export { compile, type CompileOptions, type CompiledProgram, type Defines } from './program.js';
export { hostCompiler, HOST_UNCHECKED_WARNING, type HostCompilerInfo } from './host-compiler.js';
