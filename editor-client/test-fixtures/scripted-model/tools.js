// Test double: the language model tools this extension contributes (package.json
// "languageModelTools"), which the bridge's MCP server offers as VS Code's own tools.
//   maestro_test_lookup {key}     -> "LOOKUP-MARKER <key>=<value>" (a text part)
//   maestro_test_throws {}        -> throws Error("maestro_test_throws failed on purpose")
//   maestro_test_wait {seconds}   -> waits, or stops when its token is cancelled (recorded)
//   maestro_test_parts {}         -> a text part, a prompt-tsx part (PROMPT_TSX, holding the
//                                    text TSX-MARKER) and a data part (a 1x1 PNG, PNG_BASE64)
//   maestro_test_web_search {query} -> fixed web results as JSON text (SEARCH_RESULTS): the
//                                    search tool the bridge's `tool` web search backend calls
//   maestro_test_confirm {}      -> asks for confirmation (prepareInvocation's
//                                    confirmationMessages), then "CONFIRMED-MARKER"
// Only maestro_test_confirm has a prepareInvocation, hence a confirmation to click.
const vscode = require('vscode');

const TABLE = { alpha: 'first letter', omega: 'last letter' };
const THROWS_MESSAGE = 'maestro_test_throws failed on purpose';
// A 1x1 transparent PNG.
const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
// A prompt-tsx element as @vscode/prompt-tsx's renderElementJSON serializes it (the shape
// VS Code reads: a piece node, type 1, whose text nodes, type 2, hold the text).
const PROMPT_TSX = { node: { type: 1, ctor: 2, ctorName: 'TextChunk', children: [{ type: 2, text: 'TSX-MARKER', priority: 0, lineBreakBefore: false }] } };
// What maestro_test_web_search finds, whatever the query (tests/test_e2e_vscode_web_search.py).
const SEARCH_RESULTS = [
  { title: 'Maestro Bridge web search guide', url: 'https://maestro-bridge.example/docs/web-search', snippet: 'The bridge runs hosted web search tools.' },
  { title: 'Other news', url: 'https://other.example/news', snippet: 'Unrelated.' },
];
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const text = (value) => new vscode.LanguageModelToolResult([new vscode.LanguageModelTextPart(value)]);

exports.registerTools = (record) => [
  vscode.lm.registerTool('maestro_test_confirm', {
    prepareInvocation() {
      return { confirmationMessages: { title: 'Run maestro_test_confirm?', message: 'CONFIRM-DETAIL-MARKER' } };
    },
    invoke(options) {
      record({ event: 'tool-invoked', name: 'maestro_test_confirm', input: options.input });
      return text('CONFIRMED-MARKER');
    },
  }),
  vscode.lm.registerTool('maestro_test_lookup', {
    invoke(options) {
      const key = String(options.input.key);
      record({ event: 'tool-invoked', name: 'maestro_test_lookup', input: options.input });
      return text(`LOOKUP-MARKER ${key}=${TABLE[key] ?? 'unknown'}`);
    },
  }),
  vscode.lm.registerTool('maestro_test_throws', {
    invoke(options) {
      record({ event: 'tool-invoked', name: 'maestro_test_throws', input: options.input });
      throw new Error(THROWS_MESSAGE);
    },
  }),
  vscode.lm.registerTool('maestro_test_parts', {
    invoke(options) {
      record({ event: 'tool-invoked', name: 'maestro_test_parts', input: options.input });
      return new vscode.LanguageModelToolResult([
        new vscode.LanguageModelTextPart('parts:'),
        new vscode.LanguageModelPromptTsxPart(PROMPT_TSX),
        vscode.LanguageModelDataPart.image(Buffer.from(PNG_BASE64, 'base64'), 'image/png'),
      ]);
    },
  }),
  vscode.lm.registerTool('maestro_test_web_search', {
    invoke(options) {
      record({ event: 'tool-invoked', name: 'maestro_test_web_search', input: options.input });
      return text(JSON.stringify({ results: SEARCH_RESULTS }));
    },
  }),
  vscode.lm.registerTool('maestro_test_wait', {
    async invoke(options, token) {
      const seconds = Number(options.input.seconds) || 0;
      record({ event: 'tool-invoked', name: 'maestro_test_wait', input: options.input });
      const deadline = Date.now() + seconds * 1000;
      while (!token.isCancellationRequested && Date.now() < deadline) await sleep(50);
      if (token.isCancellationRequested) {
        record({ event: 'tool-cancelled', name: 'maestro_test_wait' });
        throw new vscode.CancellationError();
      }
      record({ event: 'tool-waited', name: 'maestro_test_wait', seconds });
      return text(`waited ${seconds} s`);
    },
  }),
];
