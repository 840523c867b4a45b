// Parses every Mermaid block given on stdin (a JSON array of strings) with Mermaid's own
// parser (the `mermaid` package's mermaid.parse, under jsdom: @mermaid-js/parser has no
// flowchart grammar). Prints one line per block, "ok" or "ERR <message>"; exit 0 either way.
// Usage: node mermaid-parse.mjs <peers dir holding node_modules> < blocks.json
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import path from 'node:path';
import fs from 'node:fs';

const peers = process.argv[2];
const req = createRequire(path.join(peers, 'package.json'));
const load = async (name) => import(pathToFileURL(req.resolve(name)).href);
const { JSDOM } = await load('jsdom');
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const mermaid = (await load('mermaid')).default;
const blocks = JSON.parse(fs.readFileSync(0, 'utf8'));
for (const src of blocks) {
  try {
    await mermaid.parse(src);
    console.log('ok');
  } catch (e) {
    console.log('ERR ' + String(e.message ?? e).split('\n').join(' '));
  }
}
