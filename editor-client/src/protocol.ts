// The wire shapes and names of docs/protocol.md (version 1), shared by every module.
// Field names mirror vscode.lm; unknown fields are ignored, as the protocol says.

export const PROTOCOL_VERSION = 1;

export const Methods = {
  models: 'maestro/models',
  chat: 'maestro/chat',
  chatParts: 'maestro/chatParts',
  chatAck: 'maestro/chatAck',
  chatInput: 'maestro/chatInput',
  countTokens: 'maestro/countTokens',
  modelsChanged: 'maestro/modelsChanged',
  serverReady: 'maestro/serverReady',
  serverFailed: 'maestro/serverFailed',
  serverStandby: 'maestro/serverStandby',
  tools: 'maestro/tools',
  toolsChanged: 'maestro/toolsChanged',
  invokeTool: 'maestro/invokeTool',
  language: 'maestro/language',
} as const;

/** JSON-RPC error codes that carry a LanguageModelError code to the server. */
export const EditorErrorCodes = {
  NotFound: -32001,
  NoPermissions: -32002,
  Blocked: -32003,
  Other: -32000,
} as const;
export type EditorErrorName = keyof typeof EditorErrorCodes;
/** A failed request's JSON-RPC error `data`: VS Code's LanguageModelError code, and the
 * provider's own `Error.name` (Copilot's `ChatQuotaExceeded`, `ChatRateLimited`...; "" when
 * the error was not an Error), which the server reads to pick the HTTP status. */
export interface EditorErrorData { code: EditorErrorName; name: string }
export const REQUEST_CANCELLED = -32800;
export const INVALID_PARAMS = -32602;
export const METHOD_NOT_FOUND = -32601;

export interface ModelInfo {
  id: string;
  name: string;
  vendor: string;
  family: string;
  version: string;
  maxInputTokens: number;
  /** 0: the editor did not say. */
  maxOutputTokens?: number;
  /** Absent: the bridge takes the model to accept both. */
  capabilities?: ModelCapabilities;
  /** The provider's prices (Copilot: AI credits per million tokens), each only when it says. */
  prices?: ModelPrices;
}

export interface ModelPrices { input?: number; output?: number; cacheRead?: number; cacheWrite?: number }

export interface ModelCapabilities { imageInput?: boolean; toolCalling?: boolean }

export interface TextPart { type: 'text'; value: string }
export interface DataPart { type: 'data'; mimeType: string; data: string /* base64 */ }
export interface ToolCallPart { type: 'toolCall'; callId: string; name: string; input: Record<string, unknown> }
export interface ToolResultPart { type: 'toolResult'; callId: string; content: Array<TextPart | DataPart> }
/** `metadata`: the provider's own (Copilot: `encrypted_content`, `vscode_thinking_origin_api`),
 * so that a thought given back in a later turn's assistant message reaches the model again. */
export interface ThinkingPart { type: 'thinking'; value: string; id?: string; metadata?: Record<string, unknown> }

export type MessagePart = TextPart | DataPart | ToolCallPart | ToolResultPart | ThinkingPart;
export type ResponsePart = TextPart | DataPart | ToolCallPart | ThinkingPart;

export interface ChatMessage {
  role: 'user' | 'assistant';
  content: MessagePart[];
  name?: string;
}

export interface ChatTool {
  name: string;
  description: string;
  inputSchema?: Record<string, unknown>;
}

export interface ChatParams {
  chatId: string;
  model: string;
  messages: ChatMessage[];
  tools: ChatTool[];
  toolMode: 'auto' | 'required';
  modelOptions: Record<string, unknown>;
  /** Per-model settings Copilot reads besides modelOptions (its `reasoningEffort`). */
  modelConfiguration: Record<string, unknown>;
  justification?: string;
  /** Flow control: parts this chat may have sent and not yet acknowledged (absent: no limit). */
  window?: number;
  /** Count the input as the chat starts; refuse it past `maxTokens` (0: only count). */
  countInput?: CountInput;
}

/** `countInput` of maestro/chat: the window, and the server's estimate of the images. */
export interface CountInput { maxTokens: number; imageTokens: number }

/** `maestro/chatInput`: the input's tokens, told before the chat's first part. */
export interface ChatInputParams { chatId: string; inputTokens: number }

/** The error name of a chat refused because its input cannot fit `countInput.maxTokens`. */
export const INPUT_TOO_LONG = 'InputTooLong';

/** `maestro/chatAck`: the server consumed `parts` more parts of the chat. */
export interface ChatAckParams { chatId: string; parts: number }

export interface CountTokensParams { model: string; text: string }

/** Optional limits: absent ones take the server's defaults. */
export interface Limits {
  maxBodyBytes?: number;
  maxConcurrentBodyBytes?: number;
  maxInputItems?: number;
  maxTools?: number;
  maxJsonDepth?: number;
  maxConcurrentRequests?: number;
  idleTimeoutSeconds?: number;
  totalTimeoutSeconds?: number;
  writeTimeoutSeconds?: number;
  websocketMaxSeconds?: number;
  itemCacheBytes?: number;
  bodyTimeoutSeconds?: number;
  headerTimeoutSeconds?: number;
  keepAliveTimeoutSeconds?: number;
  maxConnections?: number;
  answerCheckSeconds?: number;
  websocketKeptBytes?: number;
  maxJsonValues?: number;
}

export interface InitializationOptions {
  protocolVersion: number;
  host: string;
  port: number;
  apiKey: string | null;
  /** Another Maestro Bridge on the port (another window): wait and take over, not fail. */
  standby?: boolean;
  /** This editor counts a chat's input when maestro/chat asks (`countInput`). */
  countsChatInput?: boolean;
  modelAliases?: Record<string, string>;
  defaultModel?: string;
  keepaliveSeconds?: number;
  allowRemote?: boolean;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  limits?: Limits;
  /** Token budgets (docs/usage.md, Budgets); absent: none. */
  budgets?: Budgets;
  /** The model asked once when the requested one fails with a rate limit, quota or server error. */
  fallbackModel?: string;
  usage?: UsageOptions;
  /** The MCP server at /mcp (docs/protocol.md, "Tools and language features"); absent: off. */
  tools?: ToolOptions;
  webSearch?: WebSearchOptions;
}

/** The search service behind the clients' hosted search tools (docs/web-search.md). */
export interface WebSearchOptions {
  backend?: 'searxng' | 'brave' | 'tavily' | 'tool';
  url?: string;
  tool?: string;
  maxResults?: number;
  timeoutSeconds?: number;
}

export interface ToolOptions {
  enable?: boolean;
  /** false: /mcp takes requests without the API key (on purpose; warned). */
  requireKey?: boolean;
  /** Tool names (globs) offered; [] offers the default set (`@default` names it). */
  allow?: string[];
  /** Tool names (globs) never offered nor called. */
  deny?: string[];
  timeoutSeconds?: number;
  maxResultChars?: number;
}

/** Input + output tokens allowed per local day / calendar month; `scoped`: "SCOPE=N/PERIOD". */
export interface Budgets {
  daily?: number;
  monthly?: number;
  scoped?: string[];
}

/** The usage ledger (docs/protocol.md, docs/usage.md). */
export interface UsageOptions {
  /** The SQLite file; "none" records nothing; absent: the user's state folder. */
  database?: string;
  /** Rows older than this many days are forgotten when a bridge starts (server default 400). */
  retentionDays?: number;
  /** Editor model id -> its AI credits per million tokens, where the model states no prices. */
  creditRates?: Record<string, CreditRate>;
}

export interface CreditRate { input: number; output: number; cacheRead?: number; cacheWrite?: number }

export interface ServerReadyParams { url: string; host: string; port: number }
export interface ServerFailedParams { message: string }
/** Another Maestro Bridge serves `url`; this server binds it when that one stops. */
export interface ServerStandbyParams { url: string; host: string; port: number }

// ---------------------------------------------------------------- tools and language features

/** One of `vscode.lm.tools`, as `maestro/tools` lists it. */
export interface ToolInfo {
  name: string;
  description: string;
  /** null: the tool takes no input. */
  inputSchema: Record<string, unknown> | null;
  tags: string[];
}

export interface InvokeToolParams {
  invocationId: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolResult { content: Array<TextPart | DataPart> }

/** The editor's own coordinates: 0-based, UTF-16 code units. */
export interface Position { line: number; character: number }
export interface Range { start: Position; end: Position }
export interface Location { uri: string; range: Range }

export type Severity = 'error' | 'warning' | 'information' | 'hint';

export interface WireDiagnostic {
  range: Range;
  severity: Severity;
  message: string;
  source?: string;
  code?: string;
}

export interface WireDocumentSymbol {
  name: string;
  kind: string;
  detail?: string;
  range: Range;
  children: WireDocumentSymbol[];
}

export interface WireWorkspaceSymbol { name: string; kind: string; containerName: string; location: Location }

export interface WireHover { contents: string[]; range?: Range }

export const LANGUAGE_FEATURES = [
  'workspace', 'diagnostics', 'definition', 'references', 'hover', 'documentSymbols', 'workspaceSymbols',
] as const;
export type LanguageFeature = (typeof LANGUAGE_FEATURES)[number];
