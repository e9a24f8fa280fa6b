// What the Trace Event Format asks of a Chrome trace in its JSON object form, as a checker that
// lists every way a trace departs from it (an empty list: the trace is well formed).

/** Problems of `trace` as a Chrome trace: ids, phases, times and the `M` events that name ids. */
export function chromeTraceProblems(trace: unknown): string[] {
  const problems: string[] = [];
  const events = (trace as { traceEvents?: unknown })?.traceEvents;
  if (!Array.isArray(events)) return ['traceEvents is not an array'];
  const named = { process: new Set<number>(), thread: new Set<string>() };
  const used = { process: new Set<number>(), thread: new Set<string>() };
  events.forEach((event: Record<string, unknown>, i) => {
    const where = `traceEvents[${i}]`;
    if (typeof event.name !== 'string') problems.push(`${where}.name is not a string`);
    if (!Number.isInteger(event.pid)) problems.push(`${where}.pid is not an integer: ${JSON.stringify(event.pid)}`);
    if (!Number.isInteger(event.tid)) problems.push(`${where}.tid is not an integer: ${JSON.stringify(event.tid)}`);
    const pid = event.pid as number;
    const thread = `${pid}/${event.tid}`;
    if (event.ph === 'M') {
      const args = event.args as { name?: unknown; sort_index?: unknown } | undefined;
      if (event.name === 'process_name' || event.name === 'thread_name') {
        if (typeof args?.name !== 'string') problems.push(`${where}: ${event.name} without args.name`);
        (event.name === 'process_name' ? named.process.add(pid) : named.thread.add(thread));
      } else if (event.name === 'thread_sort_index' || event.name === 'process_sort_index') {
        if (!Number.isInteger(args?.sort_index)) problems.push(`${where}: ${event.name} without an integer args.sort_index`);
      } else problems.push(`${where}: unknown metadata event ${String(event.name)}`);
    } else if (event.ph === 'X') {
      if (typeof event.ts !== 'number' || !Number.isFinite(event.ts)) problems.push(`${where}.ts is not a number`);
      if (typeof event.dur !== 'number' || !(event.dur >= 0)) problems.push(`${where}.dur is not a number ≥ 0`);
      used.process.add(pid);
      used.thread.add(thread);
    } else problems.push(`${where}.ph is ${JSON.stringify(event.ph)}, expected 'X' or 'M'`);
  });
  for (const pid of used.process) if (!named.process.has(pid)) problems.push(`process ${pid} has no process_name event`);
  for (const thread of used.thread) if (!named.thread.has(thread)) problems.push(`thread ${thread} has no thread_name event`);
  return problems;
}
