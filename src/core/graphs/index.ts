// graphs/: device work recorded once and launched many times: graphs built node by node or
// captured from a stream, executables and their updates, and the recordings a stream's work goes
// into. It adds createGraph and capture to Device and Stream (device-members.ts). Imports the
// folders below it up to kernels/.
import './device-members.js';

export { Graph, type NodeOptions, type ConditionOptions, type LoopOptions } from './graph.js';
export type { ConditionTest } from './conditions.js';
export { GraphExec } from './graph-exec.js';
export { GraphNode, type GraphNodeKind } from './graph-node.js';
