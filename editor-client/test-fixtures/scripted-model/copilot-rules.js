// A faithful stand-in for GitHub Copilot's language model provider (the provider behind every
// `copilot` model of vscode.lm), applied to the scripted model unless MAESTRO_SIM_PERMISSIVE=1
// (test-only). The same rules as the headless editor's (headless_editor/copilot/), read from
// microsoft/vscode-copilot-chat: languageModelAccess.ts (checks, options, messages),
// languageModelAccessPrompt.tsx (what the model sees), toolSchemaNormalizer.ts (what CAPI
// refuses per family with a blank 400) and chatMLFetcher.ts (`Request Failed: <status> <body>`),
// brought up to Copilot Chat 0.67 (microsoft/vscode, extensions/copilot/): a length finish ends
// normally with a usage part billing the whole limit, a tool-search model takes more than 128
// tools, tool calls and results are not paired, Copilot's system prompt comes first, its CAPI
// defaults fill in the options, every answer ends with a usage part (a Responses-API model's
// after a stateful_marker). Copilot throws plain Errors for its refusals (name "Error").
const vscode = require('vscode');

const RULES_ON = !['1', 'true', 'yes'].includes(process.env.MAESTRO_SIM_PERMISSIVE || '');
const MAX_TOOLS = 128;
const OPTION_KEYS = ['stop', 'temperature', 'max_tokens', 'frequency_penalty', 'presence_penalty'];
const IMAGE_TYPES = ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'image/bmp'];
const CONTINUE = 'Please continue.';
const TOP_LEVEL_REFUSED = ['oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else'];
const GPT4_REFUSED = new Set(['minLength', 'maxLength', 'pattern', 'default', 'format', 'minimum', 'maximum',
  'multipleOf', 'patternProperties', 'unevaluatedProperties', 'propertyNames', 'minProperties', 'maxProperties',
  'unevaluatedItems', 'contains', 'minContains', 'maxContains', 'minItems', 'maxItems', 'uniqueItems']);
const TYPES = new Set(['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']);

// Copilot's own system prompt (SafetyRules + EditorIntegrationRules), as a 0.67 run sent it.
const SYSTEM_PROMPT = [
  'Follow Microsoft content policies.',
  'Avoid content that violates copyrights.',
  'If you are asked to generate content that is harmful, hateful, racist, sexist, lewd, or violent, only respond with "Sorry, I can\'t assist with that."',
  'Keep your answers short and impersonal.',
  'Use Markdown formatting in your answers.',
  'Make sure to include the programming language name at the start of the Markdown code blocks.',
  'Avoid wrapping the whole response in triple backticks.',
  'Use KaTeX for math equations in your answers.',
  'Wrap inline math equations in $.',
  'Wrap more complex blocks of math equations in $$.',
  'Use ```mermaid fenced code blocks to render Mermaid diagrams in your answers.',
  'The user works in an IDE called Visual Studio Code which has a concept for editors with open files, integrated unit test support, an output pane that shows the output of running the code as well as an integrated terminal.',
  'The active document is the source code the user is looking at right now.',
  'You can only give one reply for each conversation turn.',
].join('\n');
// Models whose CAPI metadata says supports.tool_search; else Claude Sonnet/Opus >= 4.5 by id.
const TOOL_SEARCH_MODELS = new Set(['scripted-tool-search']);
function supportsToolSearch(model) {
  if (TOOL_SEARCH_MODELS.has(model.id)) return true;
  const m = /^claude-(?:sonnet|opus)-(\d+)(?:-(\d{1,2}))?(?:-|$)/.exec(model.id.toLowerCase().replace(/\./g, '-'));
  return !!m && (Number(m[1]) > 4 || (Number(m[1]) === 4 && Number(m[2] || 0) >= 5));
}
const usesResponsesApi = (model) => model.family.startsWith('gpt-5');

// CAPI's post options: the caller's over Copilot's defaults; a Responses-API model reasons instead.
function requestBody(kept, model, effort) {
  const body = { temperature: 0.1, top_p: 1, n: 1, ...kept };
  if (body.max_tokens === undefined) body.max_tokens = model.maxOutputTokens;
  if (usesResponsesApi(model)) {
    delete body.temperature;
    Object.assign(body, { reasoning: { effort: effort || 'medium' }, include: ['reasoning.encrypted_content'], text: { verbosity: 'low' } });
  }
  return body;
}

const upstream = (message, code = 'invalid_request_body') =>
  new Error(`Request Failed: 400 ${JSON.stringify({ error: { message, code } })}`);
const tokens = (value) => Math.ceil((typeof value === 'string' ? value : JSON.stringify(value)).length / 4);
const isToolResult = (p) => p instanceof vscode.LanguageModelToolResultPart
  || (vscode.LanguageModelToolResultPart2 && p instanceof vscode.LanguageModelToolResultPart2);
const isImage = (p) => p instanceof vscode.LanguageModelDataPart && IMAGE_TYPES.includes(p.mimeType.toLowerCase());

// Copilot's LanguageModelOptions.convert: its five keys; numbers (and a single stop string) only.
function modelOptions(options) {
  const kept = {};
  for (const key of OPTION_KEYS) {
    const value = options[key];
    if (key === 'stop' ? typeof value === 'string' : typeof value === 'number') kept[key] = value;
  }
  return kept;
}

// languageModelAccessPrompt.tsx: an assistant turn keeps its first text part and its calls; each
// user part becomes its own upstream message (tool result, image of the five types, non-empty text).
function render(messages) {
  const out = [];
  for (const m of messages) {
    if (m.role === vscode.LanguageModelChatMessageRole.Assistant) {
      const first = m.content.find((p) => p instanceof vscode.LanguageModelTextPart);
      const calls = m.content.filter((p) => p instanceof vscode.LanguageModelToolCallPart);
      const text = first && first.value ? [first] : [];
      if (text.length || calls.length) out.push({ role: 'assistant', parts: [...text, ...calls], calls });
      continue;
    }
    for (const p of m.content) {
      if (isToolResult(p)) out.push({ role: 'tool', parts: [p], callId: p.callId });
      else if (isImage(p) || (p instanceof vscode.LanguageModelTextPart && p.value)) out.push({ role: 'user', parts: [p] });
    }
  }
  return out;
}

// What the model answers: the rendered turns as messages, "Please continue." after an assistant turn.
function seenMessages(rendered) {
  const messages = [];
  for (const item of rendered) {
    const last = messages[messages.length - 1];
    if (item.role === 'assistant') messages.push({ role: vscode.LanguageModelChatMessageRole.Assistant, content: item.parts });
    else if (last && last.role === vscode.LanguageModelChatMessageRole.User) last.content.push(...item.parts);
    else messages.push({ role: vscode.LanguageModelChatMessageRole.User, content: [...item.parts] });
  }
  if (messages.length && messages[messages.length - 1].role === vscode.LanguageModelChatMessageRole.Assistant) {
    messages.push({ role: vscode.LanguageModelChatMessageRole.User, content: [new vscode.LanguageModelTextPart(CONTINUE)] });
  }
  return messages;
}

// The schema nodes toolSchemaNormalizer.ts visits (not $defs).
function* schemaNodes(node, depth = 0) {
  if (!node || typeof node !== 'object' || Array.isArray(node) || depth > 64) return;
  yield node;
  const kids = [];
  for (const key of ['properties', 'dependencies', 'patternProperties']) {
    if (node[key] && typeof node[key] === 'object') kids.push(...Object.values(node[key]));
  }
  kids.push(...(Array.isArray(node.items) ? node.items : [node.items]));
  for (const key of ['anyOf', 'allOf', 'oneOf']) if (Array.isArray(node[key])) kids.push(...node[key]);
  for (const key of ['additionalProperties', 'not', 'if', 'then', 'else', 'contains']) kids.push(node[key]);
  for (const kid of kids) yield* schemaNodes(kid, depth + 1);
}

function draft7Problem(node) {
  // The keywords' shapes as the draft-7 meta-schema (with Ajv's coerceTypes) wants them.
  for (const n of schemaNodes(node)) {
    const t = n.type;
    if (t !== undefined && !(typeof t === 'string' ? TYPES.has(t) : Array.isArray(t) && t.every((x) => TYPES.has(x)))) return 'a type is not a type name';
    if (n.required !== undefined && !(Array.isArray(n.required) && n.required.every((x) => typeof x === 'string'))) return 'required must be a list of strings';
    if (n.properties !== undefined && (typeof n.properties !== 'object' || Array.isArray(n.properties))) return 'properties must be an object';
  }
  return undefined;
}

function toolRefusal(tool, family) {
  if (!tool.description) return 'tool description may not be empty';
  const schema = tool.inputSchema;
  if (!schema || !Object.keys(schema).length) return undefined; // sent without parameters
  if (schema.type !== 'object' || !schema.properties || typeof schema.properties !== 'object') return 'parameters must be an object schema with properties';
  const invalid = draft7Problem(schema);
  if (invalid) return `parameters are not a valid JSON Schema (draft 7): ${invalid}`;
  for (const key of TOP_LEVEL_REFUSED) if (key in schema) return `parameters have the top-level keyword '${key}'`;
  const gpt4 = family.startsWith('gpt-4');
  const draft2020 = gpt4 || family.startsWith('claude-') || family.startsWith('o4');
  const gemini = family.toLowerCase().includes('gemini');
  for (const n of schemaNodes(schema)) {
    if (n.type === 'array' && !n.items) return 'an array schema has no items';
    if (n.type === 'object' && n.properties && Array.isArray(n.required)) {
      const missing = n.required.find((k) => n.properties[k] === undefined);
      if (missing !== undefined) return `required property '${missing}' is not defined`;
    }
    if (gpt4 && typeof n.description === 'string' && n.description.length > 1024) return 'a description is over 1024 characters';
    const refused = gpt4 && Object.keys(n).filter((k) => GPT4_REFUSED.has(k)).sort()[0];
    if (refused) return `the keyword '${refused}' is not supported`;
    if (draft2020 && n.type === 'array' && Array.isArray(n.items)) return 'items given as an array (not draft 2020-12)';
    if (gemini && Array.isArray(n.type) && n.type.includes('null')) return `type ${JSON.stringify(n.type)} holds null (Gemini needs \`nullable\`)`;
  }
  return undefined;
}

function sniff(b) {
  if (b.length >= 8 && b[0] === 0x89 && b[1] === 0x50 && b[2] === 0x4e && b[3] === 0x47) return 'image/png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'image/jpeg';
  const head = Buffer.from(b.slice(0, 12)).toString('latin1');
  if (head.startsWith('GIF87a') || head.startsWith('GIF89a')) return 'image/gif';
  if (head.startsWith('RIFF') && head.slice(8, 12) === 'WEBP') return 'image/webp';
  if (head.startsWith('BM')) return 'image/bmp';
  return undefined;
}

function imageSize(b, kind) {
  const buf = Buffer.from(b);
  try {
    if (kind === 'image/gif') return [buf.readUInt16LE(6), buf.readUInt16LE(8)];
    if (kind === 'image/bmp') return [Math.abs(buf.readInt32LE(18)), Math.abs(buf.readInt32LE(22))];
    if (kind === 'image/webp' && buf.toString('latin1', 12, 16) === 'VP8L') {
      const bits = buf.readUInt32LE(21);
      return [(bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1];
    }
    if (kind === 'image/webp' && buf.toString('latin1', 12, 16) === 'VP8X') return [buf.readUIntLE(24, 3) + 1, buf.readUIntLE(27, 3) + 1];
    if (kind === 'image/jpeg') {
      let at = 2;
      while (at + 4 <= buf.length && buf[at] === 0xff) {
        const marker = buf[at + 1];
        if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker)) return [buf.readUInt16BE(at + 7), buf.readUInt16BE(at + 5)];
        at += 2 + buf.readUInt16BE(at + 2);
      }
    }
  } catch { /* a header cut short: the size is unknown */ }
  return undefined;
}

// VS Code re-encodes an image over 768 px on both sides to PNG and keeps its label.
function imageRefusal(part) {
  const label = part.mimeType.toLowerCase();
  let kind = sniff(part.data);
  const size = kind && kind !== 'image/png' ? imageSize(part.data, kind) : undefined;
  if (size && Math.min(...size) > 768) kind = 'image/png';
  return kind === label ? undefined : `Image does not match the provided media type ${label}`;
}

// What Copilot sends the model for this request (messages, options, output limit), or throws as it does.
function copilotView(model, messages, options) {
  if (!messages.length) throw new Error('Invalid request: no messages.');
  const tools = options.tools || [];
  for (const tool of tools) {
    if (!/^[\w-]+$/.test(tool.name)) throw new Error(`Invalid tool name "${tool.name}": only alphanumeric characters, hyphens, and underscores are allowed.`);
  }
  let rendered = render(messages);
  const budget = model.maxInputTokens - tools.reduce((n, t) => n + tokens(t.name) + tokens(t.description || '') + tokens(t.inputSchema || {}), 0);
  // Copilot's prompt counts against a window that already left it out: it counts it twice.
  const cost = (items) => tokens(SYSTEM_PROMPT) + items.reduce((n, item) => n + item.parts.reduce((m, p) => m + (isImage(p) ? 85 : tokens(p.value !== undefined ? p.value : p)), 0), 0);
  if (cost(rendered) > budget) rendered = rendered.filter((item) => !(item.role === 'user' && isImage(item.parts[0])));
  if (!rendered.length || cost(rendered) > budget) throw new Error('Message exceeds token limit.');
  if (tools.length > MAX_TOOLS && !supportsToolSearch(model)) throw new Error('Cannot have more than 128 tools per request.');
  const kept = modelOptions(options.modelOptions || {});
  if (options.toolMode === vscode.LanguageModelChatToolMode.Required && tools.length > 1) {
    throw new Error('LanguageModelChatToolMode.Required is not supported with more than one tool');
  }
  for (const tool of tools) {
    const problem = toolRefusal(tool, model.family);
    if (problem) throw upstream(`Invalid schema for function '${tool.name}': ${problem}`);
  }
  // No pairing of tool calls and results: Copilot's check filters the wrong part type, never fires.
  const images = rendered.flatMap((item) => item.parts.flatMap((p) => (isToolResult(p) ? p.content.filter(isImage) : isImage(p) ? [p] : [])));
  if (images.length && !model.capabilities.imageInput) throw upstream(`model "${model.id}" not supported for vision`, '');
  for (const image of images) {
    const problem = imageRefusal(image);
    if (problem) throw upstream(problem);
  }
  const limits = [model.maxOutputTokens];
  if (typeof kept.max_tokens === 'number') limits.push(Math.max(0, Math.floor(kept.max_tokens)));
  const effort = options.modelConfiguration && typeof options.modelConfiguration.reasoningEffort === 'string' ? options.modelConfiguration.reasoningEffort : undefined;
  return { messages: seenMessages(rendered), modelOptions: kept, outputLimit: Math.min(...limits), system: SYSTEM_PROMPT, body: requestBody(kept, model, effort) };
}

// A progress that stops at the output limit: the text that fits goes out, the rest is dropped
// (0.67 only logs a warning for a length finish). The model's own usage part is held back:
// Copilot's ends the answer (finish).
function limitedProgress(progress, limit) {
  const state = { used: 0, cut: false, usage: undefined };
  return {
    state,
    report(part) {
      if (state.cut) return undefined;
      if (part instanceof vscode.LanguageModelDataPart && part.mimeType === 'usage') {
        state.usage = JSON.parse(Buffer.from(part.data).toString('utf8'));
        return undefined;
      }
      if (!(part instanceof vscode.LanguageModelTextPart || part instanceof vscode.LanguageModelToolCallPart)) return progress.report(part);
      const cost = part instanceof vscode.LanguageModelTextPart ? tokens(part.value) : tokens(part.input) + tokens(part.name);
      if (state.used + cost <= limit) {
        state.used += cost;
        return progress.report(part);
      }
      if (part instanceof vscode.LanguageModelTextPart && limit > state.used) progress.report(new vscode.LanguageModelTextPart(part.value.slice(0, (limit - state.used) * 4)));
      state.used = limit;
      state.cut = true;
      return undefined;
    },
  };
}

// How Copilot ends every answer: a Responses-API model's stateful_marker, then the usage part
// (none after a length finish: 0.67 returns the partial answer early).
let responses = 0;
function finish(progress, model, seen, state) {
  if (usesResponsesApi(model)) {
    responses += 1;
    const marker = `${model.id}\\resp_scripted${String(responses).padStart(16, '0')}`;
    progress.report(new vscode.LanguageModelDataPart(Buffer.from(marker), 'stateful_marker'));
  }
  // The model's own count stands for CAPI's when it gave one; else Copilot's prompt and the output.
  const prompt = tokens(seen.system) + seen.messages.reduce((n, m) => n + m.content.reduce((k, p) => k + tokens(p.value !== undefined ? p.value : p), 0), 0);
  if (state.cut) return;
  const usage = state.usage ? { ...state.usage } : { prompt_tokens: prompt, completion_tokens: state.used, prompt_tokens_details: { cached_tokens: 0 } };
  usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
  progress.report(new vscode.LanguageModelDataPart(Buffer.from(JSON.stringify(usage)), 'usage'));
}

module.exports = { RULES_ON, SYSTEM_PROMPT, copilotView, limitedProgress, finish, modelOptions, supportsToolSearch, requestBody, toolRefusal, imageRefusal, render, seenMessages };
