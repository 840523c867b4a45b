// Checks interactions with the official discord-interactions verifier.
// stdin: {"public_key": hex, "requests": [{"body", "signature", "timestamp"}]}  stdout: {"valid": [bool, ...]}
const { verifyKey } = require("discord-interactions");
let input = "";
process.stdin.on("data", (d) => (input += d));
process.stdin.on("end", async () => {
  const req = JSON.parse(input);
  const valid = [];
  for (const r of req.requests) {
    valid.push(await verifyKey(r.body, r.signature, String(r.timestamp), req.public_key));
  }
  process.stdout.write(JSON.stringify({ valid }));
});
