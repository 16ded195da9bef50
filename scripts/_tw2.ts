import { readFileSync } from 'node:fs';
import { pageToMarkdown } from '../src/lib/markdown.ts';
const h = readFileSync('/tmp/bb/dist/client/en/blog/generated-988.html', 'utf8');
const before = readFileSync('/tmp/bb/dist/client/en/blog/generated-988.md', 'utf8');
for (let i = 0; i < 200; i++) pageToMarkdown(h);
let t = performance.now(); for (let i = 0; i < 500; i++) pageToMarkdown(h); console.log('pageToMarkdown', ((performance.now() - t) / 500).toFixed(3), 'same output:', pageToMarkdown(h) === before);
