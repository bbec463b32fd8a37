// Test double: a scripted chat model for the end-to-end test, plus a recorder.
//
// Rules, by the last message:
//   a tool result               -> "<tool name> returned: <result text>"
//   text with "[slow]"          -> "tick " every 50 ms until the request is cancelled (recorded)
//   text with "[think]"         -> a thinking part (proposed API), then "Thought about it."
//   text with "[many N]"        -> N parts "w " as fast as the stream takes them (flow control)
//   text with "[bench N]"       -> N parts "w ", yielding to the event loop after each (benchmark)
//   text with "[notfound]"      -> throws LanguageModelError.NotFound
//   text with "[blocked]"       -> throws LanguageModelError.Blocked
//   text with "weather" + tools -> "Let me check." and a call of the first tool with {city: "Paris"}
//   text with "[call NAME {json}]" + a tool NAME -> "Calling NAME." and a call of NAME with that input
//     ... and "[then NAME2 {json}]"  -> on the first call's result, a call of NAME2 (nextCall)
//   text with "repeat your last answer" -> "My last answer: <the previous assistant turn's text>"
//   anything else               -> "You said: <text>" in small parts, then a `usage` data part
// Before any rule, the request goes through a faithful stand-in for GitHub Copilot's provider
// (copilot-rules.js): it fails where Copilot fails, with Copilot's messages, and the rules above
// answer what Copilot would have sent the model (an assistant turn's first text part only,
// "Please continue." after a trailing assistant turn, Copilot's five options, its output
// limit, its system prompt and option defaults, its usage part at the end of every answer).
// MAESTRO_SIM_PERMISSIVE=1 in the host's environment turns it off (test-only).
// `scripted-tool-search` answers the same way as a GPT-5 on the Responses API whose metadata
// says it supports tool search: it takes more than 128 tools.
// `[many N]` and `[bench N]` are load generators: the output limit does not cut them.
// It also contributes language model tools (tools.js).
// Every request, every cancellation and every state of the Maestro Bridge extension is
// appended as one JSON line to $MAESTRO_E2E_RECORD, with the name of the window (its workspace
// folder: each window has its own extension host); settings written to $MAESTRO_E2E_CONTROL
// are applied through the configuration API.
const fs = require('fs');
const vscode = require('vscode');
const copilot = require('./copilot-rules');
const { registerTools } = require('./tools');

const RECORD = process.env.MAESTRO_E2E_RECORD;
const record = (entry) => {
  const window = vscode.workspace.name;
  if (RECORD) fs.appendFileSync(RECORD, JSON.stringify({ at: Date.now(), window, ...entry }) + '\n');
};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function describePart(p) {
  if (p instanceof vscode.LanguageModelTextPart) return { type: 'text', value: p.value };
  if (p instanceof vscode.LanguageModelToolCallPart) return { type: 'toolCall', callId: p.callId, name: p.name, input: p.input };
  if (p instanceof vscode.LanguageModelToolResultPart) return { type: 'toolResult', callId: p.callId, content: p.content.map(describePart) };
  if (p instanceof vscode.LanguageModelDataPart) return { type: 'data', mimeType: p.mimeType, bytes: p.data.length };
  return { type: 'unknown' };
}
const now = () => Number(process.hrtime.bigint()) / 1e6; // ms

// The benchmark's own client of vscode.lm, in this extension host: `requests` requests, one after
// another, for `parts` parts each; per request the parts read, ms until the first one arrived
// and ms until the stream ended (both from the call of sendRequest). `history` items go before
// the last user text (user and assistant texts, tool calls and their results, as an agent's
// conversation; bench/side_by_side.py); `vendor`, `id` and `text` ask another model (Copilot's,
// with any prompt) than the scripted one's `[bench N]`.
function benchHistory(items) {
  const messages = [];
  for (let i = 0; i < items; i += 1) {
    const words = `item ${i} of the bench history with a few more words in it`;
    const call = `call_bench${Math.floor(i / 4)}`;
    const kind = i % 4 === 2 && i === items - 1 ? 1 : i % 4;
    if (kind === 0) messages.push(vscode.LanguageModelChatMessage.User(words));
    else if (kind === 1) messages.push(vscode.LanguageModelChatMessage.Assistant(words));
    else if (kind === 2) messages.push(vscode.LanguageModelChatMessage.Assistant([new vscode.LanguageModelToolCallPart(call, 'shell', { command: words })]));
    else messages.push(vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call, [new vscode.LanguageModelTextPart(words)])]));
  }
  return messages;
}

async function benchLm({ parts, requests, history = 0, vendor = 'maestro-test', id = 'scripted-model', text }) {
  const [model] = await vscode.lm.selectChatModels({ vendor, id });
  if (!model) throw new Error(`the model ${vendor}/${id} is not registered`);
  const messages = [...benchHistory(history), vscode.LanguageModelChatMessage.User(text || `[bench ${parts}]`)];
  const runs = [];
  for (let r = 0; r < requests; r += 1) {
    const started = now();
    let first = 0;
    let count = 0;
    const response = await model.sendRequest(messages, {});
    for await (const part of response.stream) {
      if (count === 0) first = now() - started;
      if (part instanceof vscode.LanguageModelTextPart) count += 1;
    }
    runs.push({ parts: count, firstMs: first, totalMs: now() - started });
  }
  return runs;
}

const textOf = (message) => message.content.filter((p) => p instanceof vscode.LanguageModelTextPart).map((p) => p.value).join('');

// "[then NAME {json}]" in the prompt of a "[call ...]": the second call, made once the first
// returned and NAME is offered (an agent's tool search, called first, loads its deferred tools).
function nextCall(messages, tools) {
  const prompt = messages.filter((m) => m.role === vscode.LanguageModelChatMessageRole.User).map(textOf).find((t) => t.includes('[call '));
  const then = prompt && /\[then (\w+) (\{.*?\})\]/.exec(prompt);
  if (!then || !tools.some((t) => t.name === then[1])) return null;
  const called = messages.some((m) => m.content.some((p) => p instanceof vscode.LanguageModelToolCallPart && p.name === then[1]));
  return called ? null : { name: then[1], input: JSON.parse(then[2]) };
}

async function respond(model, messages, options, progress, token) {
  const last = messages[messages.length - 1];
  const result = last.content.find((p) => p instanceof vscode.LanguageModelToolResultPart);
  if (result) {
    const next = nextCall(messages, options.tools || []);
    if (next) {
      progress.report(new vscode.LanguageModelTextPart(`Calling ${next.name}.`));
      progress.report(new vscode.LanguageModelToolCallPart('call_c2', next.name, next.input));
      return;
    }
    const call = messages.flatMap((m) => m.content).find((p) => p instanceof vscode.LanguageModelToolCallPart && p.callId === result.callId);
    const output = result.content.filter((p) => p instanceof vscode.LanguageModelTextPart).map((p) => p.value).join('');
    progress.report(new vscode.LanguageModelTextPart(`${call ? call.name : 'unknown tool'} returned: ${output}`));
    return;
  }
  const text = textOf(last);
  if (/repeat your last answer/i.test(text)) {
    const previous = [...messages].reverse().find((m) => m.role === vscode.LanguageModelChatMessageRole.Assistant);
    progress.report(new vscode.LanguageModelTextPart(`My last answer: ${previous ? textOf(previous) : ''}`));
    return;
  }
  if (text.includes('[slow]')) {
    const deadline = Date.now() + 30000;
    while (!token.isCancellationRequested && Date.now() < deadline) {
      progress.report(new vscode.LanguageModelTextPart('tick '));
      await sleep(50);
    }
    record({ event: token.isCancellationRequested ? 'cancelled' : 'slow-timeout', text });
    return;
  }
  const bench = /\[bench (\d+)\]/.exec(text);
  if (bench) {
    // As fast as it can, but one part per turn of the event loop, as a real stream's parts
    // arrive (bench/vscode_host.py measures what the host makes of them).
    const count = Number(bench[1]);
    for (let i = 0; i < count && !token.isCancellationRequested; i += 1) {
      progress.report(new vscode.LanguageModelTextPart('w '));
      await new Promise((resolve) => setImmediate(resolve));
    }
    return;
  }
  const many = /\[many (\d+)\]/.exec(text);
  if (many) {
    const count = Number(many[1]);
    for (let i = 0; i < count && !token.isCancellationRequested; i += 1) {
      progress.report(new vscode.LanguageModelTextPart('w '));
      if (i % 256 === 0) await sleep(0); // a real stream arrives in chunks
    }
    return;
  }
  if (text.includes('[think]')) {
    // A proposed API (code-server enables proposals for every extension).
    if (vscode.LanguageModelThinkingPart) progress.report(new vscode.LanguageModelThinkingPart('Thinking it over.', 'th-1'));
    progress.report(new vscode.LanguageModelTextPart('Thought about it.'));
    return;
  }
  if (text.includes('[notfound]')) throw vscode.LanguageModelError.NotFound('scripted: this model is gone');
  if (text.includes('[blocked]')) throw vscode.LanguageModelError.Blocked('scripted: quota exceeded');
  const tools = options.tools || [];
  // A client's own tool (Claude Code's Bash, say), named by the prompt: a one-line JSON input.
  const call = /\[call (\w+) (\{.*?\})\]/.exec(text);
  if (call && tools.some((t) => t.name === call[1])) {
    progress.report(new vscode.LanguageModelTextPart(`Calling ${call[1]}.`));
    progress.report(new vscode.LanguageModelToolCallPart('call_c1', call[1], JSON.parse(call[2])));
    return;
  }
  if (text.includes('weather') && tools.length > 0) {
    progress.report(new vscode.LanguageModelTextPart('Let me check.'));
    progress.report(new vscode.LanguageModelToolCallPart('call_w1', tools[0].name, { city: 'Paris' }));
    return;
  }
  const answer = `You said: ${text}`;
  for (let i = 0; i < answer.length; i += 4) {
    progress.report(new vscode.LanguageModelTextPart(answer.slice(i, i + 4)));
    if (i % 16 === 0) await sleep(5); // some parts queue up, some arrive one by one
  }
  const usage = { prompt_tokens: 11, completion_tokens: 7 };
  progress.report(new vscode.LanguageModelDataPart(Buffer.from(JSON.stringify(usage)), 'usage'));
}

exports.activate = (context) => {
  context.subscriptions.push(...registerTools(record));
  // `{id, models: false}` on the control channel takes the models away (as a provider that is
  // signed out offers none), `{id, models: true}` brings them back.
  let offering = true;
  const modelsChanged = new vscode.EventEmitter();
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider('maestro-test', {
      onDidChangeLanguageModelChatInformation: modelsChanged.event,
      provideLanguageModelChatInformation: () => !offering ? [] : [{
        // A GPT-4 family, so Copilot's strictest schema rules apply; Copilot's sizes for it.
        id: 'scripted-model', name: 'Scripted Model', family: 'gpt-4.1', version: '1.0.0', tooltip: 'test double',
        maxInputTokens: 100000, maxOutputTokens: 16384, capabilities: { toolCalling: true, imageInput: true },
      }, {
        id: 'scripted-tool-search', name: 'Scripted Tool Search', family: 'gpt-5.4', version: '1.0.0', tooltip: 'test double',
        maxInputTokens: 100000, maxOutputTokens: 64000, capabilities: { toolCalling: true, imageInput: true },
      }],
      async provideLanguageModelChatResponse(model, messages, options, progress, token) {
        record({
          event: 'request', model: model.id,
          messages: messages.map((m) => ({ role: m.role === vscode.LanguageModelChatMessageRole.User ? 'user' : 'assistant', content: m.content.map(describePart) })),
          tools: (options.tools || []).map((t) => ({ name: t.name, inputSchema: t.inputSchema })),
          toolMode: options.toolMode, modelOptions: options.modelOptions,
        });
        if (!copilot.RULES_ON) {
          await respond(model, messages, options, progress, token);
          return;
        }
        const seen = copilot.copilotView(model, messages, options);
        const load = /\[(many|bench) \d+\]/.test(textOf(seen.messages[seen.messages.length - 1]));
        const limited = load ? progress : copilot.limitedProgress(progress, seen.outputLimit);
        await respond(model, seen.messages, { ...options, modelOptions: seen.modelOptions }, limited, token);
        // Every complete answer ends with Copilot's usage part, a load generator's too (the
        // bridge reads a Copilot-like answer without one as cut at the output limit).
        copilot.finish(progress, model, seen, load ? { used: 0, cut: false } : limited.state);
      },
      provideTokenCount: async (_model, text) => Math.ceil((typeof text === 'string' ? text : JSON.stringify(text)).length / 4),
    }),
  );
  // Requests of the test, written to $MAESTRO_E2E_CONTROL: {id, settings} are applied as user
  // settings through the configuration API; {id, command, args?} runs a command; {id, open} opens
  // a file of the window's folder in an editor; {id, terminal: FILE} writes an integrated
  // terminal's $MAESTRO_BRIDGE_API_KEY and $MAESTRO_BRIDGE_URL to FILE and records them; {id, tooltip}
  // records the Maestro Bridge status bar tooltip; {id, bench: {parts,
  // requests}} runs benchLm and records its runs. A request naming a
  // `window` is for that window's extension host only.
  let bridgeApi; // the Maestro Bridge extension's API, once it is active
  const CONTROL = process.env.MAESTRO_E2E_CONTROL;
  if (CONTROL) {
    let applied;
    const poll = setInterval(() => {
      let request;
      try { request = JSON.parse(fs.readFileSync(CONTROL, 'utf8')); } catch { return; }
      if (request.id === applied) return;
      applied = request.id;
      if (request.window && request.window !== vscode.workspace.name) return;
      if (request.bench) {
        benchLm(request.bench).then((runs) => record({ event: 'bench-done', id: request.id, runs }),
          (err) => record({ event: 'bench-failed', id: request.id, message: String(err && err.stack || err) }));
        return;
      }
      if (request.open) {
        // Opens a file of the window's folder in an editor tab, as a person working on it has
        // it (TypeScript's language server reports problems only of files open in tabs).
        const folder = vscode.workspace.workspaceFolders[0].uri;
        Promise.resolve(vscode.workspace.openTextDocument(vscode.Uri.joinPath(folder, request.open)))
          .then((document) => vscode.window.showTextDocument(document))
          .then(() => record({ event: 'open-done', id: request.id }),
            (err) => record({ event: 'open-failed', id: request.id, message: String(err) }));
        return;
      }
      if (request.terminal) {
        // Starts a shell in an integrated terminal, as a person starts an agent there, which
        // writes what it finds in its environment to the file `request.terminal`.
        const out = request.terminal;
        const script = `printf '%s\\n%s' "$MAESTRO_BRIDGE_API_KEY" "$MAESTRO_BRIDGE_URL" > '${out}.tmp' && mv '${out}.tmp' '${out}'`;
        const terminal = vscode.window.createTerminal({ name: 'maestro-test', shellPath: '/bin/sh', shellArgs: ['-c', script] });
        const started = Date.now();
        const wait = setInterval(() => {
          if (fs.existsSync(out)) {
            clearInterval(wait);
            const [key, url] = fs.readFileSync(out, 'utf8').split('\n');
            terminal.dispose();
            record({ event: 'terminal-done', id: request.id, key, url });
          } else if (Date.now() - started > 30000) {
            clearInterval(wait);
            record({ event: 'terminal-failed', id: request.id, message: 'the terminal wrote nothing' });
          }
        }, 100);
        return;
      }
      if (typeof request.models === 'boolean') {
        offering = request.models;
        modelsChanged.fire();
        record({ event: 'models-done', id: request.id, offering });
        return;
      }
      if (request.tooltip) {
        // The Maestro Bridge status bar item's tooltip, as its API reports it.
        record({ event: 'tooltip-done', id: request.id, tooltip: bridgeApi ? bridgeApi.statusTooltip() : null });
        return;
      }
      if (request.command) {
        // Runs a command as the Command Palette would, then reports what it put on the clipboard.
        Promise.resolve(vscode.commands.executeCommand(request.command, ...(request.args || [])))
          .then(() => vscode.env.clipboard.readText())
          .then((clipboard) => record({ event: 'command-done', id: request.id, clipboard }),
            (err) => record({ event: 'command-failed', id: request.id, message: String(err) }));
        return;
      }
      const config = vscode.workspace.getConfiguration();
      Object.entries(request.settings)
        .reduce((done, [key, value]) => done.then(() => config.update(key, value, vscode.ConfigurationTarget.Global)), Promise.resolve())
        .then(() => record({ event: 'settings-applied', id: request.id }),
          (err) => record({ event: 'settings-failed', id: request.id, message: String(err) }));
    }, 200);
    context.subscriptions.push({ dispose: () => clearInterval(poll) });
  }
  // Report the bridge's state, so the test learns its URL (the port is picked at random).
  const bridge = vscode.extensions.getExtension('maestro.maestro-bridge');
  if (!bridge) {
    record({ event: 'bridge-missing' });
    return;
  }
  Promise.resolve(bridge.activate()).then((api) => {
    bridgeApi = api;
    const report = (state) => record({ event: 'bridge-state', state });
    report(api.state());
    context.subscriptions.push(api.onDidChangeState(report));
  }, (err) => record({ event: 'bridge-activate-failed', message: String(err && err.stack || err) }));
};
