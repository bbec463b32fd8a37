// The openai Node SDK as a Chat Completions client of Maestro Bridge, driven by
// tests/test_e2e_node_chat.py.
//
//   node chat_client.cjs SCENARIO BASE_URL MODEL
//
// Prints one JSON document on stdout: what the SDK gave back (chunks, completions, parsed
// output, errors) and `wire`, every HTTP exchange as it crossed the wire (request body, status,
// content type, response body), recorded by a fetch wrapper handed to the SDK, so the Python
// test checks the raw bodies and SSE streams too (tests/chat_validation.py). Any unexpected SDK
// error exits non-zero with the error on stderr. CommonJS, so NODE_PATH can point at the
// cached node_modules (.cache/node-sdk, installed by scripts/test).
"use strict";

const { OpenAI } = require("openai");
const { zodResponseFormat } = require("openai/helpers/zod");
const { VERSION } = require("openai/version");
const { z } = require("zod");

const WEATHER_PARAMETERS = {
  type: "object",
  properties: { city: { type: "string" } },
  required: ["city"],
  additionalProperties: false,
};
const WEATHER_TOOL = {
  type: "function",
  function: {
    name: "get_weather",
    description: "The weather in a city.",
    parameters: WEATHER_PARAMETERS,
    strict: true,
  },
};
const FORECAST_FORMAT = {
  type: "json_schema",
  json_schema: {
    name: "forecast",
    strict: true,
    schema: {
      type: "object",
      properties: {
        city: { type: "string" },
        celsius: { type: "integer" },
        sunny: { type: "boolean" },
      },
      required: ["city", "celsius", "sunny"],
      additionalProperties: false,
    },
  },
};
const WITH_USAGE = { stream_options: { include_usage: true } };

function weather(args) {
  return `Sunny, 21 C in ${args.city}.`;
}

// The SDK's fetch, recording each exchange; the response body is read from a clone, so the
// SDK reads its own copy undisturbed.
function recordingFetch(wire) {
  return async (url, init) => {
    const response = await fetch(url, init);
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
    wire.push({
      url: String(url),
      request: body,
      status: response.status,
      content_type: response.headers.get("content-type"),
      body: response.clone().text(),
    });
    return response;
  };
}

async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
  }
  return chunks;
}

// The same question three ways: create(), create({stream: true}) with usage, the stream()
// helper with usage and its finalChatCompletion(). With a reasoning effort, which is what makes
// Copilot's Claude (and so sim-reasoning) think.
async function basicsScenario(client, model) {
  const messages = [
    { role: "system", content: "Answer briefly." },
    { role: "user", content: "Hello from Node!" },
  ];
  const effort = { reasoning_effort: "low" };
  const created = await client.chat.completions.create({ model, messages, ...effort });
  const raw = await collect(
    await client.chat.completions.create({ model, messages, stream: true, ...effort, ...WITH_USAGE }),
  );
  const helper = client.chat.completions.stream({ model, messages, ...effort, ...WITH_USAGE });
  const helperChunks = await collect(helper);
  const helperFinal = await helper.finalChatCompletion();
  return { created, raw_chunks: raw, helper_chunks: helperChunks, helper_final: helperFinal };
}

// A tool loop by hand (the model calls get_weather in a stream, the client answers with a
// `tool` message, the model reports in a plain create()), then the SDK's own runTools().
async function toolsScenario(client, model) {
  const messages = [{ role: "user", content: "What is the weather in Paris?" }];
  const helper = client.chat.completions.stream({
    model,
    messages,
    tools: [WEATHER_TOOL],
    ...WITH_USAGE,
  });
  const firstChunks = await collect(helper);
  const first = await helper.finalChatCompletion();
  const message = first.choices[0].message;
  const calls = (message.tool_calls ?? []).map((call) => ({
    id: call.id,
    type: "function",
    function: { name: call.function.name, arguments: call.function.arguments },
  }));
  messages.push({ role: "assistant", content: message.content, tool_calls: calls });
  for (const call of calls) {
    const args = JSON.parse(call.function.arguments);
    messages.push({ role: "tool", tool_call_id: call.id, content: weather(args) });
  }
  const second = await client.chat.completions.create({ model, messages, tools: [WEATHER_TOOL] });

  const runner = client.chat.completions.runTools({
    model,
    messages: [{ role: "user", content: "What is the weather in Lyon?" }],
    tools: [
      {
        type: "function",
        function: {
          name: "get_weather",
          parameters: WEATHER_PARAMETERS,
          function: weather,
          parse: JSON.parse,
        },
      },
    ],
  });
  const runnerContent = await runner.finalContent();
  return {
    first_chunks: firstChunks,
    first,
    calls,
    second,
    runner_content: runnerContent,
    runner_roles: runner.messages.map((entry) => entry.role),
  };
}

// The same format in zod: the stream() helper parses only formats it made itself.
const FORECAST_ZOD = z.object({ city: z.string(), celsius: z.number().int(), sunny: z.boolean() });

// chat.completions.parse() with a json_schema response_format, and the stream() helper with
// the zod form of it (the helper parses the final message).
async function parseScenario(client, model) {
  const messages = [{ role: "user", content: "The forecast for Paris, please." }];
  const parsed = await client.chat.completions.parse({
    model,
    messages,
    response_format: FORECAST_FORMAT,
  });
  const helper = client.chat.completions.stream({
    model,
    messages,
    response_format: zodResponseFormat(FORECAST_ZOD, "forecast"),
  });
  const streamChunks = await collect(helper);
  const streamFinal = await helper.finalChatCompletion();
  return {
    parsed: parsed.choices[0].message.parsed,
    stream_chunks: streamChunks,
    stream_parsed: streamFinal.choices[0].message.parsed,
  };
}

// The token limit (both spellings) and stop sequences, each as JSON and as a stream.
async function limitsScenario(client, model) {
  const messages = [{ role: "user", content: "Tell me about the lighthouse keeper." }];
  const stream = async (params) =>
    collect(await client.chat.completions.create({ model, messages, stream: true, ...params }));
  return {
    short: await client.chat.completions.create({ model, messages, max_completion_tokens: 3 }),
    short_chunks: await stream({ max_tokens: 3, ...WITH_USAGE }),
    stopped: await client.chat.completions.create({ model, messages, stop: ["lighthouse"] }),
    stopped_chunks: await stream({ stop: "lighthouse" }),
  };
}

function described(error) {
  return {
    name: error?.constructor?.name,
    status: error?.status ?? null,
    message: String(error?.message ?? error),
    error: error?.error ?? null,
  };
}

// Requests the bridge refuses, and a stream that fails after it began (a scripted model):
// each must reach the SDK as its APIError.
async function errorsScenario(client, model) {
  const refused = {};
  const requests = {
    n: { model, messages: [{ role: "user", content: "Hi" }], n: 2 },
    unknown_model: { model: "no-such-model", messages: [{ role: "user", content: "Hi" }] },
    no_messages: { model, messages: [] },
  };
  for (const [name, body] of Object.entries(requests)) {
    try {
      await client.chat.completions.create(body);
      refused[name] = null;
    } catch (error) {
      refused[name] = described(error);
    }
  }
  const chunks = [];
  let streamError = null;
  try {
    const stream = await client.chat.completions.create({
      model,
      messages: [{ role: "user", content: "Fail midway, please." }],
      stream: true,
    });
    for await (const chunk of stream) chunks.push(chunk);
  } catch (error) {
    streamError = described(error);
  }
  return { refused, stream_chunks: chunks, stream_error: streamError };
}

async function main() {
  const [scenario, baseURL, model] = process.argv.slice(2);
  const wire = [];
  // No retries: a failure must show up as a failure, not as a slow success.
  const client = new OpenAI({
    baseURL,
    apiKey: "unused",
    maxRetries: 0,
    timeout: 60_000,
    fetch: recordingFetch(wire),
  });
  const scenarios = {
    basics: basicsScenario,
    tools: toolsScenario,
    parse: parseScenario,
    limits: limitsScenario,
    errors: errorsScenario,
  };
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  const result = await scenarios[scenario](client, model);
  for (const exchange of wire) exchange.body = await exchange.body;
  process.stdout.write(JSON.stringify({ sdk: VERSION, ...result, wire }));
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  process.exit(1);
});
