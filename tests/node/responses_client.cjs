// The openai Node SDK as a client of Maestro Bridge, driven by tests/test_e2e_node_sdk.py.
//
//   node responses_client.cjs SCENARIO BASE_URL MODEL
//
// Prints one JSON document on stdout: what the SDK gave back (every streamed event, every
// Response), for the Python test to check against the Open Responses spec. Any SDK error
// exits non-zero with the error on stderr. CommonJS, so NODE_PATH can point at the cached
// node_modules (.cache/node-sdk, installed by scripts/test).
"use strict";

const { OpenAI } = require("openai");
const { VERSION } = require("openai/version");

const WEATHER_TOOL = {
  type: "function",
  name: "get_weather",
  description: "The weather in a city.",
  parameters: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
    additionalProperties: false,
  },
  strict: true,
};

function weather(args) {
  return `Sunny, 21 C in ${args.city}.`;
}

async function collect(stream) {
  const events = [];
  for await (const event of stream) {
    events.push(event);
  }
  return events;
}

// create({stream: true}), the stream() helper, and a plain create() for output_text.
async function streamScenario(client, model) {
  const raw = await collect(
    await client.responses.create({ model, input: "Hello from Node!", stream: true }),
  );
  const helper = client.responses.stream({ model, input: "Hello again!" });
  const helperEvents = await collect(helper);
  const helperFinal = await helper.finalResponse();
  const created = await client.responses.create({ model, input: "Plain create." });
  return {
    sdk: VERSION,
    raw_events: raw,
    helper_events: helperEvents,
    helper_final: helperFinal,
    created,
    created_output_text: created.output_text,
  };
}

// A tool loop: the model calls get_weather (streamed), the client runs it and sends the
// whole history back with the result; the model answers in text.
async function toolsScenario(client, model) {
  const input = [{ role: "user", content: "What is the weather in Paris?" }];
  const rounds = [];
  const calls = [];
  for (let round = 0; round < 4; round++) {
    const events = await collect(
      await client.responses.create({ model, input, tools: [WEATHER_TOOL], stream: true }),
    );
    const done = events.find((event) => event.type === "response.completed");
    if (!done) throw new Error(`round ${round}: no response.completed`);
    rounds.push({ events });
    const response = done.response;
    const functionCalls = response.output.filter((item) => item.type === "function_call");
    if (functionCalls.length === 0) {
      return { sdk: VERSION, rounds, calls, final_text: response.output_text ?? textOf(response) };
    }
    input.push(...response.output);
    for (const call of functionCalls) {
      const args = JSON.parse(call.arguments);
      calls.push({ name: call.name, arguments: args });
      input.push({ type: "function_call_output", call_id: call.call_id, output: weather(args) });
    }
  }
  throw new Error("the model kept calling tools");
}

function textOf(response) {
  return response.output
    .filter((item) => item.type === "message")
    .flatMap((item) => item.content)
    .filter((part) => part.type === "output_text")
    .map((part) => part.text)
    .join("");
}

async function main() {
  const [scenario, baseURL, model] = process.argv.slice(2);
  // No retries: a failure must show up as a failure, not as a slow success.
  const client = new OpenAI({ baseURL, apiKey: "unused", maxRetries: 0, timeout: 60_000 });
  const scenarios = { stream: streamScenario, tools: toolsScenario };
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const result = await scenarios[scenario](client, model);
  process.stdout.write(JSON.stringify(result));
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
