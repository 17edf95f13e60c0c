// A stock @ag-ui/client HttpAgent against a live citewise (tests/test_agui_input.py).
// Usage: node agui_http_agent.cjs BASE_URL; prints one JSON report on stdout.
// Nothing here is citewise-specific but the URL: the front-end tool round trip is AG-UI's
// standard flow — run, answer the pending tool call with a `tool` message, run again.
"use strict";
const { HttpAgent } = require("@ag-ui/client");

const base = process.argv[2];
const pickOrder = {
  name: "pick_order",
  description: "Ask the user, in the page, which of their orders they mean.",
  parameters: { type: "object", properties: { reason: { type: "string" } } },
};

function recorder() {
  const types = [];
  return { types, subscriber: { onEvent: ({ event }) => { types.push(event.type); } } };
}

async function main() {
  const report = {};

  // 1. A plain question: RunAgentInput with one user message, no tools.
  const plain = new HttpAgent({ url: `${base}/v1/runs?format=ag-ui`, threadId: "agui-plain" });
  plain.addMessage({ id: "m1", role: "user", content: "How fast are refunds?" });
  const seen = recorder();
  const answered = await plain.runAgent({}, seen.subscriber);
  report.plain = { events: seen.types, newMessages: answered.newMessages };

  // 2. A front-end tool, executed here, and the state the page keeps.
  const agent = new HttpAgent({ url: `${base}/v1/runs?format=ag-ui`, threadId: "agui-tools",
                                initialState: { cart: ["A-17"], page: "orders" } });
  agent.addMessage({ id: "u1", role: "user", content: "Refund my order please" });
  const first = recorder();
  const one = await agent.runAgent({ tools: [pickOrder] }, first.subscriber);
  const calls = one.newMessages.flatMap((m) => m.toolCalls || []);
  report.first = { events: first.types, newMessages: one.newMessages, state: agent.state };
  for (const call of calls) {
    const args = JSON.parse(call.function.arguments);
    agent.addMessage({ id: `r-${call.id}`, role: "tool", toolCallId: call.id,
                       content: `The user picked order A-17 (${args.reason || "no reason"}).` });
  }
  const second = recorder();
  const two = await agent.runAgent({ tools: [pickOrder] }, second.subscriber);
  report.second = { events: second.types, newMessages: two.newMessages, state: agent.state };
  report.messages = agent.messages;
  process.stdout.write(JSON.stringify(report));
}

main().catch((err) => { console.error(err && err.stack || String(err)); process.exit(1); });
