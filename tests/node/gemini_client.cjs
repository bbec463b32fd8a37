// Google's @google/genai Node SDK (what Gemini CLI is built on) as a client of Maestro Bridge's
// Gemini dialect, driven by tests/test_e2e_node_gemini.py.
//
//   node gemini_client.cjs SCENARIO BASE_URL MODEL
//
// BASE_URL is the bridge's `/v1` URL; the SDK is given its root and `apiVersion: "v1beta"`.
// Prints one JSON document on stdout: what the SDK gave back (answers, chunks, counts, models,
// errors) and `wire`, every HTTP exchange as it crossed the wire (URL, method, request body,
// status, content type, response body), recorded by the fetch the SDK is handed
// (`httpOptions.fetch`), so the Python test checks the raw bodies and SSE streams too
// (tests/gemini_validation.py). Any unexpected SDK error exits non-zero with the error on
// stderr. CommonJS, so NODE_PATH can point at the cached node_modules (.cache/node-sdk).
"use strict";

const { GoogleGenAI, ApiError, Type } = require("@google/genai");
const fs = require("node:fs");
const path = require("node:path");

// The package's exports hide its package.json: read it beside the resolved entry point.
function sdkVersion() {
  let dir = path.dirname(require.resolve("@google/genai"));
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    dir = path.dirname(dir);
  }
  return JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version;
}

const WEATHER_TOOL = {
  functionDeclarations: [
    {
      name: "get_weather",
      description: "The weather in a city.",
      parameters: {
        type: Type.OBJECT,
        properties: { city: { type: Type.STRING } },
        required: ["city"],
      },
    },
  ],
};

// The SDK's fetch, recording each exchange; the response body is read from a clone, so the
// SDK reads its own copy undisturbed.
function recordingFetch(wire) {
  return async (url, init) => {
    const response = await fetch(url, init);
    const body = typeof init?.body === "string" && init.body ? JSON.parse(init.body) : null;
    wire.push({
      url: String(url),
      method: init?.method ?? "GET",
      request: body,
      status: response.status,
      content_type: response.headers.get("content-type"),
      body: response.clone().text(),
    });
    return response;
  };
}

function client(baseUrl, wire) {
  return new GoogleGenAI({
    apiKey: "unused",
    httpOptions: {
      baseUrl: baseUrl.replace(/\/v1\/?$/, ""),
      apiVersion: "v1beta",
      fetch: recordingFetch(wire),
    },
  });
}

async function collect(stream) {
  const chunks = [];
  for await (const chunk of stream) {
    chunks.push(chunk);
  }
  return chunks;
}

// The SDK's objects as JSON (its response classes carry the fields as properties; sdkHttpResponse
// holds headers, which the test does not need).
function plain(value) {
  const copy = JSON.parse(JSON.stringify(value));
  if (copy && typeof copy === "object") {
    delete copy.sdkHttpResponse;
  }
  return copy;
}

// One question answered whole and streamed, counted, and the model list.
async function basicsScenario(ai, model) {
  const request = {
    model,
    contents: [{ role: "user", parts: [{ text: "Hello from Node!" }] }],
    config: { systemInstruction: "Answer briefly." },
  };
  const answer = await ai.models.generateContent(request);
  const chunks = await collect(await ai.models.generateContentStream(request));
  const count = await ai.models.countTokens({ model, contents: request.contents });
  const listed = [];
  for await (const entry of await ai.models.list({ config: { pageSize: 50 } })) {
    listed.push(plain(entry));
  }
  const one = await ai.models.get({ model });
  return {
    answer: plain(answer),
    text: answer.text,
    chunks: chunks.map(plain),
    chunk_texts: chunks.map((chunk) => chunk.text ?? ""),
    count: plain(count),
    models: listed,
    model: plain(one),
  };
}

// A function-call round trip: the model calls get_weather (streamed, then whole), the client
// runs it and sends a functionResponse with the call's id; the model reports.
async function toolsScenario(ai, model) {
  const question = { role: "user", parts: [{ text: "What is the weather in Paris?" }] };
  const config = { tools: [WEATHER_TOOL] };
  const streamed = await collect(
    await ai.models.generateContentStream({ model, contents: [question], config }),
  );
  const first = await ai.models.generateContent({ model, contents: [question], config });
  const calls = first.functionCalls ?? [];
  const modelTurn = first.candidates[0].content;
  const results = {
    role: "user",
    parts: calls.map((call) => ({
      functionResponse: {
        id: call.id,
        name: call.name,
        response: { output: `Sunny, 21 C in ${call.args.city}.` },
      },
    })),
  };
  const second = await ai.models.generateContent({
    model,
    contents: [question, modelTurn, results],
    config,
  });
  return {
    streamed: streamed.map(plain),
    streamed_calls: streamed.flatMap((chunk) => chunk.functionCalls ?? []),
    first: plain(first),
    calls,
    second: plain(second),
    second_text: second.text,
  };
}

async function refusal(call) {
  try {
    await call();
  } catch (error) {
    if (error instanceof ApiError) {
      return { status: error.status, message: error.message };
    }
    throw error;
  }
  throw new Error("the request succeeded but should have failed");
}

// Errors before the answer (HTTP status + envelope) and after a stream began (one data line).
async function errorsScenario(ai, model) {
  const contents = [{ role: "user", parts: [{ text: "Hello" }] }];
  const refused = {
    unknown_model: await refusal(() =>
      ai.models.generateContent({ model: "no-such-model", contents }),
    ),
    two_candidates: await refusal(() =>
      ai.models.generateContent({ model, contents, config: { candidateCount: 2 } }),
    ),
    no_contents: await refusal(() => ai.models.generateContent({ model, contents: [] })),
  };
  const chunks = [];
  let streamError = null;
  try {
    const stream = await ai.models.generateContentStream({
      model,
      contents: [{ role: "user", parts: [{ text: "Fail midway" }] }],
    });
    for await (const chunk of stream) {
      chunks.push(plain(chunk));
    }
  } catch (error) {
    if (!(error instanceof ApiError)) {
      throw error;
    }
    streamError = { status: error.status, message: error.message };
  }
  return { refused, stream_chunks: chunks, stream_error: streamError };
}

const SCENARIOS = { basics: basicsScenario, tools: toolsScenario, errors: errorsScenario };

async function main() {
  const [scenario, baseUrl, model] = process.argv.slice(2);
  const run = SCENARIOS[scenario];
  if (!run) {
    throw new Error(`unknown scenario ${scenario}`);
  }
  const wire = [];
  const result = await run(client(baseUrl, wire), model);
  for (const exchange of wire) {
    exchange.body = await exchange.body;
  }
  process.stdout.write(JSON.stringify({ sdk: sdkVersion(), ...result, wire }));
}

main().catch((error) => {
  process.stderr.write(`${error?.stack ?? error}\n`);
  process.exit(1);
});
