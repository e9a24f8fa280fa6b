// graphs/: the engines below Graph, GraphExec and GraphNode (core/api/): a graph's builder and its
// nodes' work, stream capture and the recordings a stream's work goes into, conditional nodes on
// both backends, and the condition kernels. Imports the folders below it up to kernels/.
export type { ConditionTest, ConditionOptions, LoopOptions } from './conditions.js';
