// What holds for a graph's conditions as a whole, checked when it is instantiated (on both
// backends): each read by one conditional node, and used on one side of every JavaScript step (a
// native graph per segment, and a condition is a handle of one); and the walk into conditional
// nodes' bodies by which an executable finds and replaces a body's node.
import { GraphError } from '../base/errors.js';
import type { GraphCondition } from '../device/condition.js';
import { conditionalWork, type NodeWork } from './node-work.js';

/** Calls `visit` on each condition `work` uses: its node's, its setter's, its kernel's arguments, its bodies'. */
function conditionsOf(work: NodeWork, visit: (condition: GraphCondition, read: boolean) => void): void {
  switch (work.kind) {
    case 'kernel':
      work.kernel.signature.forEach((p, i) => {
        if (p === 'condition') visit(work.args[i] as GraphCondition, false);
      });
      return;
    case 'setCondition':
      return visit(work.condition, false);
    case 'conditional':
      visit(work.condition, true);
      for (const body of work.bodies) for (const child of body.works) conditionsOf(child, visit);
      return;
    default:
  }
}

/**
 * @throws GraphError (`condition`) for a condition that no conditional node reads, or that is
 * used in two segments of the graph (on both sides of a JavaScript step).
 */
export function checkConditionUses(works: readonly NodeWork[], segments: readonly { readonly first: number; readonly end: number }[]): void {
  const segmentOf = new Map<GraphCondition, number>();
  const read = new Set<GraphCondition>();
  segments.forEach((segment, s) => {
    for (let i = segment.first; i < segment.end; i++)
      conditionsOf(works[i]!, (condition, reads) => {
        if (reads) read.add(condition);
        const was = segmentOf.get(condition);
        if (was !== undefined && was !== s)
          throw new GraphError('condition', `${condition.name} is used on both sides of a JavaScript step: a condition lives in one part of a graph, between its steps`);
        segmentOf.set(condition, s);
      });
  });
  for (const condition of segmentOf.keys())
    if (!read.has(condition)) throw new GraphError('condition', `${condition.name} is set but no conditional node reads it: add its node, or leave it out`);
}

/** The bounded while loops among `works`, in bodies too. */
export function countBoundedLoops(works: readonly NodeWork[]): number {
  let count = 0;
  for (const work of works)
    if (work.kind === 'conditional') {
      if (work.loop) count++;
      for (const body of work.bodies) count += countBoundedLoops(body.works);
    }
  return count;
}

function bodyIndex(work: NodeWork, body: object): number {
  const b = work.kind === 'conditional' ? work.bodies.findIndex((x) => x.graph === body) : -1;
  if (b < 0) throw new RangeError('Expected `node` to be a node of this executable\'s graph, got a node of a body it does not hold');
  return b;
}

/** The work of node `index` of `body`, a body of conditional `work`. */
export function childOf(work: NodeWork, body: object, index: number): NodeWork {
  const works = (work as Extract<NodeWork, { kind: 'conditional' }>).bodies[bodyIndex(work, body)]!.works;
  if (index >= works.length) throw new RangeError('Expected `node` to be a node of this executable\'s graph, got a node added to its body after it was made');
  return works[index]!;
}

/** Conditional `work` with node `index` of its body `body` replaced by `child`. */
export function withChild(work: NodeWork, body: object, index: number, child: NodeWork): NodeWork {
  const conditional = work as Extract<NodeWork, { kind: 'conditional' }>;
  const b = bodyIndex(work, body);
  const bodies = conditional.bodies.slice();
  const works = bodies[b]!.works.slice();
  works[index] = child;
  bodies[b] = Object.freeze({ ...bodies[b]!, works: Object.freeze(works) });
  return conditionalWork(conditional.type, conditional.condition, bodies, conditional.loop);
}
