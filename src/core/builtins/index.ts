// builtins/: a few kernels every pipeline needs, with a CUDA and a CPU implementation behind one
// API. Imports the folders below it up to kernels/.
export { Builtins, type BuiltinDType } from './builtins.js';
