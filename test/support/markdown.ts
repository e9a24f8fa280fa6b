// The fenced code blocks of a Markdown page, with where they are, for tests that check them.

export interface CodeBlock {
  /** The info string after the opening fence, e.g. `ts` or `sh`. */
  readonly lang: string;
  /** The 1-based line of the opening fence. */
  readonly line: number;
  /** The nearest heading above the block. */
  readonly heading: string;
  /** The block's text, without the fences. */
  readonly code: string;
}

/** Every fenced (```) code block of `markdown`, in order; throws on a fence left open. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let heading = '';
  let open: { lang: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, i) => {
    if (open) {
      if (text.trimEnd() === '```') {
        blocks.push({ lang: open.lang, line: open.line, heading, code: open.lines.join('\n') + '\n' });
        open = undefined;
      } else open.lines.push(text);
    } else if (text.startsWith('```')) open = { lang: text.slice(3).trim(), line: i + 1, lines: [] };
    else if (text.startsWith('#')) heading = text.replace(/^#+\s*/, '');
  });
  if (open) throw new Error(`The code block opened at line ${open.line} is never closed`);
  return blocks;
}

/** The texts that a block's `// prints: text` comments say its output contains. */
export function printed(code: string): string[] {
  return [...code.matchAll(/\/\/ prints: (.+)$/gm)].map((m) => m[1]!.trim());
}
