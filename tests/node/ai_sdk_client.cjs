// The Vercel AI SDK (`ai` with `@ai-sdk/openai`, the Responses API) as a client of Maestro
// Bridge, at its default settings (store on), driven by tests/test_e2e_ai_sdk.py.
//
//   node ai_sdk_client.cjs SCENARIO BASE_URL MODEL
//
// Prints one JSON document on stdout: what the SDK gave back (texts, reasoning, tool calls
// and results per step), the raw Responses JSON or events it parsed, and every request body
// it sent (seen through the SDK's `fetch` option, unchanged). Any SDK error exits non-zero
// with the error on stderr. CommonJS, so NODE_PATH can point at the cached node_modules.
"use strict";

const { generateText, streamText, stepCountIs, tool } = require("ai");
const { createOpenAI } = require("@ai-sdk/openai");
const { z } = require("zod");

// No retries: a failure must show up as a failure, not as a slow success.
const CALL = { maxRetries: 0 };

function weatherTool(executed) {
  return tool({
    description: "The weather in a city.",
    inputSchema: z.object({ city: z.string() }),
    execute: async ({ city }) => {
      executed.push(city);
      return `Sunny, 21 C in ${city}.`;
    },
  });
}

function stepSummary(step) {
  return {
    text: step.text,
    reasoning_text: step.reasoningText ?? null,
    finish_reason: step.finishReason,
    tool_calls: step.toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
    tool_results: step.toolResults.map((result) => ({
      name: result.toolName,
      output: result.output,
    })),
  };
}

// Two turns of a chat: the first answer goes back in the messages, as an app keeps history.
async function chatScenario(model) {
  const messages = [{ role: "user", content: "Hello from the AI SDK!" }];
  const first = await generateText({ ...CALL, model, messages });
  messages.push(...first.response.messages);
  messages.push({ role: "user", content: "What did you just say?" });
  const second = await generateText({ ...CALL, model, messages });
  return {
    turns: [first, second].map((result) => ({
      ...stepSummary(result),
      body: result.response.body,
    })),
  };
}

// A tool loop with generateText: the SDK runs the tool and calls the model again, step by step.
async function toolsGenerateScenario(model) {
  const executed = [];
  const result = await generateText({
    ...CALL,
    model,
    prompt: "What is the weather in Paris and Rome?",
    tools: { get_weather: weatherTool(executed) },
    stopWhen: stepCountIs(5),
  });
  return {
    text: result.text,
    executed,
    steps: result.steps.map((step) => ({ ...stepSummary(step), body: step.response.body })),
  };
}

// The same loop streamed with streamText; raw chunks are the Responses events as parsed.
async function toolsStreamScenario(model) {
  const executed = [];
  const result = streamText({
    ...CALL,
    model,
    prompt: "What is the weather in Paris and Rome?",
    tools: { get_weather: weatherTool(executed) },
    stopWhen: stepCountIs(5),
    includeRawChunks: true,
  });
  const raw = [];
  const parts = [];
  for await (const part of result.fullStream) {
    if (part.type === "raw") {
      raw.push(part.rawValue);
    } else {
      parts.push(part.type);
    }
    if (part.type === "error") throw part.error;
  }
  const steps = await result.steps;
  return {
    text: await result.text,
    executed,
    steps: steps.map(stepSummary),
    raw_events: raw,
    part_types: parts,
  };
}

async function main() {
  const [scenario, baseURL, modelId] = process.argv.slice(2);
  const requests = [];
  const provider = createOpenAI({
    baseURL,
    apiKey: "unused",
    // Observes what the SDK sends; the request itself goes out unchanged.
    fetch: async (url, init) => {
      if (init && typeof init.body === "string") requests.push(JSON.parse(init.body));
      return fetch(url, init);
    },
  });
  const scenarios = {
    chat: chatScenario,
    "tools-generate": toolsGenerateScenario,
    "tools-stream": toolsStreamScenario,
  };
  if (!scenarios[scenario]) throw new Error(`unknown scenario ${scenario}`);
  // provider(id) is the SDK's default model: the Responses API.
  const result = await scenarios[scenario](provider(modelId));
  process.stdout.write(
    JSON.stringify({
      versions: {
        ai: require("ai/package.json").version,
        "@ai-sdk/openai": require("@ai-sdk/openai/package.json").version,
      },
      ...result,
      requests,
    }),
  );
}

main().catch((error) => {
  console.error(error && error.stack ? error.stack : error);
  if (error && error.responseBody) console.error(`response body: ${error.responseBody}`);
  process.exit(1);
});
