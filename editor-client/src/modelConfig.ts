// What the editor's API tells of a model beyond the stable fields, and what of the bridge's
// per-request model configuration may go to it. Pure: unit-tested in node.
//
// A `LanguageModelChat` carries `maxInputTokens` in the stable API; newer VS Code builds also
// expose the provider's `maxOutputTokens`, `capabilities` and (proposed `chatProvider` API) the
// `configurationSchema` of the per-model configuration that Copilot reads (its reasoning effort).
// Each is read only where present, with its type checked. VS Code 1.139's model objects carry
// none of the three (its `_createLanguageModelChatApi`): the server then falls back to the
// client's own output limit and takes capabilities as present.

import type { ModelCapabilities, ModelPrices } from './protocol';

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

// VS Code 1.139's model objects carry the provider's prices: Copilot's AI credits per million
// tokens of input, output, cache reads and cache writes (its `billing.token_prices`).
const PRICE_FIELDS: ReadonlyArray<[keyof ModelPrices, string]> = [
  ['input', 'inputCost'], ['output', 'outputCost'], ['cacheRead', 'cacheCost'], ['cacheWrite', 'cacheWriteCost'],
];

/** The prices the model object states (none: undefined). */
export function modelPrices(m: Record<string, unknown>): ModelPrices | undefined {
  const prices: ModelPrices = {};
  for (const [key, field] of PRICE_FIELDS) {
    const value = m[field];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) prices[key] = value;
  }
  return Object.keys(prices).length > 0 ? prices : undefined;
}

type Extras = { maxOutputTokens: number; capabilities?: ModelCapabilities; prices?: ModelPrices };

/** The model's output limit (0: not said), capabilities (absent: the bridge assumes both) and
 * prices (absent: not said). */
export function modelExtras(model: unknown): Extras {
  const m = isObject(model) ? model : {};
  const out = m.maxOutputTokens;
  const extras: Extras = {
    maxOutputTokens: typeof out === 'number' && Number.isFinite(out) && out > 0 ? out : 0,
  };
  const prices = modelPrices(m);
  if (prices) extras.prices = prices;
  const caps = m.capabilities;
  if (isObject(caps)) {
    const capabilities: ModelCapabilities = {};
    // The provider's names (`imageInput`, `toolCalling`), or the older proposed ones.
    const image = caps.imageInput ?? caps.supportsImageToText;
    const tools = caps.toolCalling ?? caps.supportsToolCalling;
    if (typeof image === 'boolean') capabilities.imageInput = image;
    if (typeof tools === 'boolean') capabilities.toolCalling = tools;
    else if (typeof tools === 'number') capabilities.toolCalling = tools > 0;
    extras.capabilities = capabilities;
  }
  return extras;
}

/** The keys Copilot reads from a request's model configuration (languageModelAccess.ts). */
export const KNOWN_CONFIGURATION_KEYS: readonly string[] = ['reasoningEffort'];

/**
 * The part of `wanted` that goes to the model, and the keys left out. With a configuration
 * schema, what it lists (a value outside a listed `enum` left out too): a provider validates
 * its configuration against it. VS Code 1.139 gives extensions' model objects no schema; then
 * the keys Copilot reads pass as they are (the server already made the effort a level every
 * model takes) and any other key is left out.
 */
export function allowedConfiguration(
  model: unknown, wanted: Record<string, unknown>,
): { passed: Record<string, unknown>; left: string[] } {
  const schema = isObject(model) ? model.configurationSchema : undefined;
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : undefined;
  const passed: Record<string, unknown> = {};
  const left: string[] = [];
  for (const [key, value] of Object.entries(wanted)) {
    if (properties === undefined) {
      if (KNOWN_CONFIGURATION_KEYS.includes(key)) passed[key] = value;
      else left.push(key);
      continue;
    }
    const property = properties[key];
    const choices = isObject(property) && Array.isArray(property.enum) ? property.enum : undefined;
    if (isObject(property) && (choices === undefined || choices.includes(value))) passed[key] = value;
    else left.push(key);
  }
  return { passed, left };
}

/**
 * The request options that carry `passed` to the provider. VS Code forwards the consumer's
 * `configuration` (merged over the user's per-model choice) and overwrites the provider's
 * `modelConfiguration` with it (extHostLanguageModels.ts, `$startChatRequest`); older builds
 * read `modelConfiguration` itself, so both are set.
 */
export function configurationOptions(
  passed: Record<string, unknown>,
): { configuration?: Record<string, unknown>; modelConfiguration?: Record<string, unknown> } {
  if (Object.keys(passed).length === 0) return {};
  return { configuration: { ...passed }, modelConfiguration: { ...passed } };
}
