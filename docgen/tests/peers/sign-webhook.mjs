// Signs a webhook payload the way GitHub does, with GitHub's own library
// (@octokit/webhooks-methods). Secret in WEBHOOK_SECRET, payload on stdin; prints the
// X-Hub-Signature-256 value. The package is looked up under $CODEMAP_PEERS (default /work/peers).
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const peers = process.env.CODEMAP_PEERS || "/work/peers";
const entry = join(peers, "node_modules/@octokit/webhooks-methods/dist-node/index.js");
const { sign, verify } = await import(pathToFileURL(entry).href);

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const payload = Buffer.concat(chunks).toString("utf8");
const signature = await sign(process.env.WEBHOOK_SECRET, payload);
// The library's own check of what it produced, so a broken install fails loudly here.
if (!(await verify(process.env.WEBHOOK_SECRET, payload, signature))) {
  throw new Error("octokit could not verify its own signature");
}
process.stdout.write(signature);
