// npm run bench: every benchmark, each against its native baseline, in this process's GPU run.
for (const name of ['launch', 'completion', 'pipeline', 'graph', 'libraries', 'small-frames']) await import(`./${name}.mjs`);
